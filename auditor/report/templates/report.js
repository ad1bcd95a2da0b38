/* The HTML report's one script: placed inline in the page and allowed by its hash in the
   Content-Security-Policy (computed when the page is written). No network, no eval, no innerHTML:
   it only moves the rows the page already holds. Every table.sortable sorts by a click on a heading;
   a table with controls (a .controls block naming it in data-table) is filtered and paged, so 50,000
   rows stay quick: only one page of rows is in the document at a time. */
(function () {
  "use strict";
  var root = document.documentElement;

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var raw = cell.getAttribute("data-value");
    if (raw !== null && raw !== "" && !isNaN(Number(raw))) { return Number(raw); }
    return cell.textContent.trim().toLowerCase();
  }

  function Pager(table, controls) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var texts = null;  // each row's text, lower case, built on the first filter
    var size = Number(table.getAttribute("data-page-rows")) || 100;
    var page = 0, shown = rows, all = false;
    var filter = controls && controls.querySelector("input.filter");
    var selects = controls ? Array.prototype.slice.call(controls.querySelectorAll("select[data-attr]")) : [];
    var count = controls && controls.querySelector(".count");
    var prev = controls && controls.querySelector("button.prev");
    var next = controls && controls.querySelector("button.next");

    function draw() {
      var pages = Math.max(1, Math.ceil(shown.length / size));
      if (page >= pages) { page = pages - 1; }
      var slice = all ? shown : shown.slice(page * size, (page + 1) * size);
      var fragment = document.createDocumentFragment();
      slice.forEach(function (row) { fragment.appendChild(row); });
      body.replaceChildren(fragment);
      table.classList.remove("deferred");
      if (count) {
        count.textContent = shown.length + " shown of " + rows.length +
          (pages > 1 && !all ? " · page " + (page + 1) + " of " + pages : "");
      }
      if (prev) { prev.disabled = page === 0; }
      if (next) { next.disabled = page >= pages - 1; }
    }
    function apply() {
      var text = filter ? filter.value.toLowerCase() : "";
      if (text && texts === null) {
        texts = new Map();
        rows.forEach(function (row) { texts.set(row, row.textContent.toLowerCase()); });
      }
      shown = rows.filter(function (row) {
        if (text && texts.get(row).indexOf(text) < 0) { return false; }
        return selects.every(function (select) {
          return !select.value || row.getAttribute(select.getAttribute("data-attr")) === select.value;
        });
      });
      page = 0;
      draw();
    }
    this.sort = function (index, down) {
      var order = function (a, b) {
        var x = cellValue(a, index), y = cellValue(b, index);
        if (x === y) { return 0; }
        return (x < y ? -1 : 1) * (down ? -1 : 1);
      };
      rows.sort(order);
      shown.sort(order);
      page = 0;
      draw();
    };
    this.showAll = function (on) { all = on; draw(); };
    if (filter) { filter.addEventListener("input", apply); }
    selects.forEach(function (select) { select.addEventListener("change", apply); });
    if (prev) { prev.addEventListener("click", function () { page -= 1; draw(); }); }
    if (next) { next.addEventListener("click", function () { page += 1; draw(); }); }
    apply();
  }

  var pagers = [];
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var controls = table.id ? document.querySelector('.controls[data-table="' + table.id + '"]') : null;
    var pager = new Pager(table, controls);
    pagers.push(pager);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.addEventListener("click", function () {
        var down = th.getAttribute("data-sorted") === "up";
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
          other.removeAttribute("data-sorted");
        });
        th.setAttribute("data-sorted", down ? "down" : "up");
        pager.sort(index, down);
      });
    });
  });

  // printing shows every row that passes the filter, not one page
  window.addEventListener("beforeprint", function () { pagers.forEach(function (p) { p.showAll(true); }); });
  window.addEventListener("afterprint", function () { pagers.forEach(function (p) { p.showAll(false); }); });

  // replays: one open at a time, and following a link to a finding opens its replay
  var replays = document.querySelectorAll("details.replay");
  Array.prototype.forEach.call(replays, function (details) {
    details.addEventListener("toggle", function () {
      if (!details.open) { return; }
      Array.prototype.forEach.call(replays, function (other) {
        if (other !== details && other.open) { other.open = false; }
      });
    });
  });
  function openTarget() {
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    var details = target && target.querySelector("details.replay");
    if (details) { details.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  root.setAttribute("data-report-ready", "1");
}());
