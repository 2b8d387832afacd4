// Kioku UI: asks before destructive buttons, and drops the one-time message from the address
// so a reload does not show it again. Pages work without this file; it never reads data into
// code (no eval, no innerHTML): it only reads the fixed data-confirm attribute and the URL.
"use strict";
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form && form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
(function () {
  if (!window.URL || !window.history || !window.history.replaceState) {
    return;
  }
  var url = new URL(window.location.href);
  if (url.searchParams.has("msg") || url.searchParams.has("err")) {
    url.searchParams.delete("msg");
    url.searchParams.delete("err");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
})();
