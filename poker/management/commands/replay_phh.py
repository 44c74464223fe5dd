"""``manage.py replay_phh [--json] [--check] PATH [PATH ...]``: replay PHH hand histories.

A thin wrapper: the work, the options and the output are those of
:func:`poker.engine.phh_cli.main` (see its module for the output contract).
"""

from __future__ import annotations

import sys
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from poker.engine import phh_cli


class Command(BaseCommand):
    help = "Replay PHH files or folders through the engine and print finishing stacks."

    def add_arguments(self, parser: ArgumentParser) -> None:
        phh_cli.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        status = phh_cli.run(
            options["paths"],
            as_json=options["json"],
            check=options["check"],
            out=self.stdout,
            err=self.stderr,
        )
        if status:
            sys.exit(status)
