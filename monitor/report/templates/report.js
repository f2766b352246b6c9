// Sort the index table by a column. Reads only numbers from data- attributes and moves
// existing rows; it never builds HTML from text, so conversation text stays inert.
(function () {
  "use strict";
  var table = document.getElementById("index-table");
  if (!table) { return; }
  var body = table.tBodies[0];
  var buttons = table.querySelectorAll("th button");
  function sortBy(button, ascending) {
    var key = button.getAttribute("data-sort");
    var numeric = button.getAttribute("data-type") === "num";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.getAttribute("data-" + key), y = b.getAttribute("data-" + key);
      var d = numeric ? parseFloat(x) - parseFloat(y) : (x < y ? -1 : x > y ? 1 : 0);
      return ascending ? d : -d;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    buttons.forEach(function (b) { b.removeAttribute("aria-sort"); });
    button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      var ascending = button.getAttribute("aria-sort") !== "ascending";
      if (button.getAttribute("data-sort") === "certs" && !button.hasAttribute("aria-sort")) {
        ascending = false; // most certificates first on the first click
      }
      sortBy(button, ascending);
    });
  });
})();
