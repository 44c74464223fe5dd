// The unit in an amount's label ("Amount (EUR)") follows the currency chosen in the same
// form: amounts are typed in the currency's units, so the label says which.
(function () {
  "use strict";
  for (const unit of document.querySelectorAll("[data-currency-unit]")) {
    const select = unit.closest("form")?.querySelector("select[name=currency]");
    if (!select) continue;
    const follow = () => { unit.textContent = select.value; };
    select.addEventListener("change", follow);
    follow();
  }
})();
