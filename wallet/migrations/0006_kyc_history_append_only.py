from django.db import migrations

from core.db import AppendOnly

# The KYC history is append-only: the database refuses UPDATE and DELETE, whatever the path.


class Migration(migrations.Migration):
    dependencies = [("wallet", "0005_play_money_reload_kyc")]

    operations = [AppendOnly("wallet_kycstatuschange")]
