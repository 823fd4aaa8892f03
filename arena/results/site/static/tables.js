// Sortable tables: each header of a table with class "sortable" gets a button that sorts
// its rows by that column (ascending, then descending), and says so with aria-sort.
// Numbers sort as numbers ("10" after "9"; "1523†" is 1523), blank cells always last.
// A table whose rows are not all in the page (the games list) passes its own sort.
(function () {
  "use strict";
  const NUMBER = /^[+\-\u2212]?\d+(\.\d+)?/;

  // The value a cell sorts by: a number where the text starts with one, else the text.
  function sortKey(text) {
    const t = String(text).trim();
    const m = NUMBER.exec(t);
    if (m) return { blank: false, number: Number(m[0].replace("\u2212", "-")), text: t };
    return { blank: t === "" || t === "-" || t === "\u2014", number: null, text: t.toLowerCase() };
  }

  function compare(a, b) {  // two keys neither of which is blank
    if (a.number !== null && b.number !== null) return a.number - b.number;
    if (a.number !== null) return -1;  // numbers before words
    if (b.number !== null) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  // Sort items by key(item) in direction (1 or -1), blanks last, ties in their first order.
  function sortBy(items, key, direction) {
    const keyed = items.map(function (item, i) { return { item: item, key: sortKey(key(item)), i: i }; });
    keyed.sort(function (x, y) {
      if (x.key.blank !== y.key.blank) return x.key.blank ? 1 : -1;
      return direction * compare(x.key, y.key) || x.i - y.i;
    });
    return keyed.map(function (k) { return k.item; });
  }

  function sortRowsInPage(table, column, direction) {
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const sorted = sortBy(rows, function (row) { return row.cells[column] ? row.cells[column].textContent : ""; }, direction);
    for (const row of sorted) body.appendChild(row);
  }

  // Make table's headers sort it; onSort(column, direction) does the sorting (default: the rows in the page).
  function sortable(table, onSort) {
    const sort = onSort || function (column, direction) { sortRowsInPage(table, column, direction); };
    const headers = Array.from(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      const button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      button.title = "sort by this column";
      th.appendChild(button);
      th.classList.add("sortable");
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        const direction = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        for (const other of headers) other.setAttribute("aria-sort", "none");
        th.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
        sort(column, direction);
      });
    });
  }

  window.ARENA_TABLES = { sortable: sortable, sortBy: sortBy };
  document.querySelectorAll("table.sortable").forEach(function (table) { sortable(table); });
})();
