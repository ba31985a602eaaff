// sitemapkit audit report: a site tree coloured by audit status and a findings table.
// Every value from the web is set with textContent: nothing here parses HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("audit-data").textContent);
  var F = data.findings; // [code, severity, url, sitemap, line, evidence]
  var RANK = { error: 3, warning: 2, info: 1, ok: 0 };
  var PAGE = 500;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // --- tree -----------------------------------------------------------------
  function shown(segment) {
    try { return decodeURIComponent(segment); } catch (e) { return segment; }
  }
  function worse(a, b) { return RANK[a] >= RANK[b] ? a : b; }
  var root = { name: "", kids: {}, status: "ok", n: 0 };
  function add(url, status) {
    var m = /^([a-z]+:\/\/[^\/?#]*)([^?#]*)/i.exec(url || "");
    if (!m) return;
    var parts = [m[1]].concat(m[2].split("/").filter(function (s) { return s; }));
    var node = root;
    node.status = worse(node.status, status);
    for (var i = 0; i < parts.length; i++) {
      var k = parts[i];
      if (!node.kids[k]) node.kids[k] = { name: k, kids: {}, status: "ok", n: 0 };
      node = node.kids[k];
      node.status = worse(node.status, status);
    }
    node.n += 1;
  }
  data.pages.forEach(function (u) { add(u, "ok"); });
  F.forEach(function (f) { if (f[2]) add(f[2], f[1]); });

  function draw(node, into, depth) {
    var names = Object.keys(node.kids).sort();
    if (!names.length) return;
    var ul = el("ul");
    names.forEach(function (name) {
      var kid = node.kids[name];
      var li = el("li");
      var label = el("span");
      label.appendChild(el("span", "dot " + kid.status));
      label.appendChild(el("span", "sev-" + kid.status, shown(name)));
      if (Object.keys(kid.kids).length) {
        var det = el("details");
        if (depth < 1) det.open = true;
        var sum = el("summary");
        sum.appendChild(label);
        det.appendChild(sum);
        det.addEventListener("toggle", function () {
          if (det.open && det.childNodes.length === 1) draw(kid, det, depth + 1);
        }, { once: false });
        if (det.open) draw(kid, det, depth + 1);
        li.appendChild(det);
      } else {
        label.className = "leaf";
        li.appendChild(label);
      }
      ul.appendChild(li);
    });
    into.appendChild(ul);
  }
  draw(root, document.getElementById("tree"), 0);

  // --- table ----------------------------------------------------------------
  var body = document.querySelector("table.findings tbody");
  var text = document.getElementById("filter-text");
  var sev = document.getElementById("filter-severity");
  var code = document.getElementById("filter-code");
  var more = document.getElementById("more");
  var shownNote = document.getElementById("shown");
  var sortCol = 1, sortDir = -1, limit = PAGE;

  Object.keys(data.counts).forEach(function (c) { code.appendChild(el("option", null, c)); });

  function matches(f) {
    if (sev.value && f[1] !== sev.value) return false;
    if (code.value && f[0] !== code.value) return false;
    var q = text.value.toLowerCase();
    if (!q) return true;
    for (var i = 0; i < f.length; i++) {
      if (f[i] !== null && String(f[i]).toLowerCase().indexOf(q) >= 0) return true;
    }
    return false;
  }
  function key(f) { return sortCol === 1 ? RANK[f[1]] : (f[sortCol] === null ? "" : f[sortCol]); }
  function render() {
    var rows = F.filter(matches);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      return x < y ? -sortDir : x > y ? sortDir : 0;
    });
    body.textContent = "";
    rows.slice(0, limit).forEach(function (f) {
      var tr = el("tr");
      tr.appendChild(el("td", null, f[0]));
      tr.appendChild(el("td", "sev-" + f[1], f[1]));
      tr.appendChild(el("td", null, f[2]));
      tr.appendChild(el("td", null, f[3] ? f[3] + (f[4] !== null ? ":" + f[4] : "") : ""));
      tr.appendChild(el("td", null, f[5]));
      body.appendChild(tr);
    });
    shownNote.textContent = "showing " + Math.min(limit, rows.length) + " of " + rows.length;
    more.hidden = rows.length <= limit;
  }
  document.querySelectorAll("table.findings th").forEach(function (th, i) {
    var col = [0, 1, 2, 3, 5][i];
    th.tabIndex = 0;
    function sort() {
      sortDir = sortCol === col ? -sortDir : 1;
      sortCol = col;
      document.querySelectorAll("table.findings th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      render();
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
  });
  [text, sev, code].forEach(function (c) {
    c.addEventListener("input", function () { limit = PAGE; render(); });
  });
  more.addEventListener("click", function () { limit += PAGE; render(); });
  render();
  document.documentElement.setAttribute("data-ready", "1");
})();
