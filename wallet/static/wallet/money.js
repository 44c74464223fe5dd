// Money as people read and type it, in the pages' scripts: the twin of wallet/amounts.py
// (money_format, money_parse), pinned to it by tests/support/money_cases.json. Amounts are
// integer minor units; a currency comes as the server states it (currency_spec):
// {code: "EUR", decimals: 2, symbol: "€"}.
(function (root) {
  "use strict";

  // Digits only (ASCII), an optional point and decimals: as wallet.amounts._TYPED.
  const TYPED = /^(?=\.?[0-9])([0-9]*)(?:\.([0-9]*))?$/;
  // What JSON carries exactly: beyond it a number is no longer a count of minor units.
  const MAX = Number.MAX_SAFE_INTEGER;

  function format(amount, currency, options) {
    const { code = true, plus = false, chips_bare = false } = options || {};
    const scale = 10 ** currency.decimals;
    const n = Number(amount) || 0;
    const sign = n < 0 ? "-" : plus && n > 0 ? "+" : "";
    const abs = Math.abs(n);
    const whole = Math.floor(abs / scale).toLocaleString("en-US");
    const fraction = currency.decimals
      ? "." + String(abs % scale).padStart(currency.decimals, "0") : "";
    const number = whole + fraction;
    if (!code || (chips_bare && currency.decimals === 0 && !currency.symbol)) return sign + number;
    return currency.symbol ? sign + currency.symbol + number : `${sign}${number} ${currency.code}`;
  }

  // At a table: money with its symbol, play chips bare ("€19.90", "1,990").
  function amount(minor, currency) {
    return format(minor, currency, { chips_bare: true });
  }

  // What a person typed ("20", "19.90") as minor units: {minor} or {error, message}.
  function parse(text, currency) {
    const decimals = currency.decimals;
    const typed = String(text).trim();
    const example = decimals === 0 ? "1500" : "25 or 25.50";
    const match = TYPED.exec(typed.startsWith("-") ? typed.slice(1) : typed);
    if (!match) {
      return { error: "amount_not_a_number",
               message: `Enter an amount in ${currency.code} such as ${example} (digits, and a point before the decimals).` };
    }
    const whole = match[1];
    const fraction = match[2] || "";
    if (fraction.length > decimals) {
      const said = decimals === 0 ? `${currency.code} are counted whole`
        : `${currency.code} amounts have at most ${decimals} decimals`;
      return { error: "amount_decimals", message: `${said}: ${typed} is not a valid amount.` };
    }
    const minor = Number(whole || "0") * 10 ** decimals + Number(fraction.padEnd(decimals, "0") || "0");
    if (typed.startsWith("-") || minor === 0) {
      return { error: "amount_not_positive", message: "Enter an amount above zero." };
    }
    if (!(minor <= MAX)) {
      return { error: "amount_too_large", message: `${typed.slice(0, 24)} ${currency.code} is more than can be held.` };
    }
    return { minor };
  }

  // A minor-unit amount in an input box: the units a person would type ("19.90", "1500").
  function typed(minor, currency) {
    return format(minor, currency, { code: false }).replaceAll(",", "");
  }

  root.Money = { format, amount, parse, typed };
})(window);
