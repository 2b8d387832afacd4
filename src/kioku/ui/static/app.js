// Kioku UI: asks before destructive buttons. Pages work without this file; it never reads data
// into code (no eval, no innerHTML): it only reads the fixed data-confirm attribute.
"use strict";
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form && form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
