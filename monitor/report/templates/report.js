// The report's only script. (1) Sorts the index by a column (reads numbers from data-
// attributes, moves existing rows) and filters its rows by id. (2) Opens a conversation:
// its markup sits escaped and inert in a <script type="text/x-skg-conversation"> until
// asked for, then is parsed into a <template> (which runs nothing) and shown. The URL
// fragment says what is open: #c-<16 hex> is a conversation, #c-<16 hex>-cert-<n> one of
// its certificates.
(function () {
  "use strict";
  var body = document.body;
  var main = document.querySelector("main");
  var ANCHOR = /^#(c-[0-9a-f]{16})(-cert-[0-9]+)?$/;

  function section(anchor) {
    var found = document.getElementById(anchor);
    if (found) { return found; }
    var source = document.getElementById("src-" + anchor);
    if (!source) { return null; }
    var holder = document.createElement("template");
    holder.innerHTML = source.textContent;
    var made = holder.content.firstElementChild;
    main.appendChild(made);
    return made;
  }

  function route() {
    if (!body.classList.contains("multi")) { return; }
    var match = ANCHOR.exec(location.hash);
    var open = match ? section(match[1]) : null;
    document.querySelectorAll("section.conv.shown, .targeted").forEach(function (el) {
      el.classList.remove("shown", "targeted");
    });
    body.classList.toggle("viewing", !!open);
    if (!open) { return; }
    open.classList.add("shown");
    var target = match[2] ? document.getElementById(match[1] + match[2]) : null;
    if (target) {
      target.classList.add("targeted");
      target.scrollIntoView({block: "center"});
    } else {
      window.scrollTo(0, 0);
    }
  }
  window.addEventListener("hashchange", route);
  route();

  var table = document.getElementById("index-table");
  if (!table) { return; }
  var rows = table.tBodies[0];
  var buttons = table.querySelectorAll("th button");
  function sortBy(button, ascending) {
    var key = button.getAttribute("data-sort");
    var numeric = button.getAttribute("data-type") === "num";
    var list = Array.prototype.slice.call(rows.rows);
    list.sort(function (a, b) {
      var x = a.getAttribute("data-" + key), y = b.getAttribute("data-" + key);
      var d = numeric ? parseFloat(x) - parseFloat(y) : (x < y ? -1 : x > y ? 1 : 0);
      return ascending ? d : -d;
    });
    list.forEach(function (row) { rows.appendChild(row); });
    buttons.forEach(function (b) { b.removeAttribute("aria-sort"); });
    button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  var filter = document.getElementById("filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var needle = filter.value.trim().toLowerCase();
      Array.prototype.forEach.call(rows.rows, function (row) {
        row.hidden = needle !== "" && row.getAttribute("data-id").indexOf(needle) < 0;
      });
    });
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
