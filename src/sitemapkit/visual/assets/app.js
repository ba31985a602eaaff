/* sitemapkit visual map: reads the tree JSON that Python embedded, lays out what is
 * expanded, draws it as SVG. No library: a leaf-slot tidy tree (each leaf takes a row,
 * a parent sits midway over its children) is all three layouts need, and pan/zoom is
 * an SVG transform. Every string from the web goes through textContent, never HTML.
 * A big map's data comes deflated in base64 (payload.pack); the browser inflates it. */
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var dataEl = document.getElementById('sitemap-data');
  if (dataEl.getAttribute('data-encoding') === 'deflate') {
    var bin = atob(dataEl.textContent), bytes = new Uint8Array(bin.length);
    for (var b64 = 0; b64 < bin.length; b64++) { bytes[b64] = bin.charCodeAt(b64); }
    bin = null;
    var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    new Response(inflated).text().then(function (text) { start(JSON.parse(text)); });
  } else {
    start(JSON.parse(dataEl.textContent));
  }

function start(D) {
  if (D.v !== 2) { throw new Error('sitemapkit: unknown data version ' + D.v); }

  // ---- the model ----------------------------------------------------------------
  var N = D.k.length;
  var KIND_PAGE = 0, KIND_FOLDER = 1, KIND_HOST = 2, KIND_SITE = 3, KIND_GROUP = 4, KIND_EXTERNAL = 5;
  // synthetic nodes: no URL of their own (a depth group, the "External links" group)
  function isGroup(n) { return kind[n] === KIND_GROUP || kind[n] === KIND_EXTERNAL; }
  var kind = new Int8Array(N), hasPage = new Uint8Array(N);
  var i;
  for (i = 0; i < N; i++) { kind[i] = D.k[i] & 7; hasPage[i] = (D.k[i] & 32) ? 1 : 0; }
  // a field no page has is left out of the data: every page has the default
  var DEFAULTS = { t: '', h: 0, d: -1, x: 2, r: 0, i: 0, o: 0, l: 0, ls: 0, c: 0, g: 0, gw: 0 };
  Object.keys(DEFAULTS).forEach(function (key) {
    if (!D[key]) { D[key] = typeof DEFAULTS[key] === 'string' ? new Array(N).fill('') : new Int32Array(N).fill(DEFAULTS[key]); }
  });
  // the path tree comes as child counts in pre-order: parents are rebuilt with a stack
  var parentOf = new Int32Array(N).fill(-1);
  (function () {
    var nodes = [], left = [], M = D.n.length;
    for (var a = 0; a < M; a++) {
      while (nodes.length && left[left.length - 1] === 0) { nodes.pop(); left.pop(); }
      if (nodes.length) { parentOf[a] = nodes[nodes.length - 1]; left[left.length - 1]--; }
      if (D.n[a] > 0) { nodes.push(a); left.push(D.n[a]); }
    }
  })();
  D.p = parentOf;
  // sparse per-page extras of a crawl: how rendering went, the first screen's picture
  var RENDERED = D.rn || {}, THUMBS = D.th || {};
  // the app's first screen of a big map (visual/preview.py): sections with the pages
  // below them counted, not drawn; the whole map replaces this page when it is built
  var CUT = D.w || {}, PREVIEW = Object.keys(CUT).length > 0;
  function cutBelow(V, n) { return V.name === 'path' && n >= 0 ? (CUT[n] || 0) : 0; }

  function childLists(parent) {
    var lists = new Array(N);
    for (var a = 0; a < N; a++) { lists[a] = null; }
    for (var b = 0; b < N; b++) {
      var pa = parent[b];
      if (pa >= 0) { (lists[pa] || (lists[pa] = [])).push(b); }
    }
    return lists;
  }
  function postorder(root, kids) {
    var out = [], stack = [root];
    while (stack.length) {
      var n = stack.pop();
      if (n < 0) { out.push(~n); continue; }
      stack.push(~n);
      var c = kids[n];
      if (c) { for (var x = c.length - 1; x >= 0; x--) { stack.push(c[x]); } }
    }
    return out;
  }
  function makeView(name, parent, root) {
    var kids = childLists(parent);
    var pages = new Int32Array(N), level = new Int32Array(N).fill(-1);
    var order = postorder(root, kids);
    for (var a = 0; a < order.length; a++) {
      var n = order[a], c = kids[n], s = hasPage[n] + (name === 'path' ? (CUT[n] || 0) : 0);
      if (c) { for (var x = 0; x < c.length; x++) { s += pages[c[x]]; } }
      pages[n] = s;
    }
    if (name === 'depth') {
      for (var b = 0; b < N; b++) {
        if (kids[b]) { kids[b].sort(function (u, v) { return (pages[v] - pages[u]) || (u - v); }); }
      }
    }
    var stack = [root]; level[root] = 0;
    while (stack.length) {
      var m = stack.pop(), cc = kids[m];
      if (cc) { for (var y = 0; y < cc.length; y++) { level[cc[y]] = level[m] + 1; stack.push(cc[y]); } }
    }
    return { name: name, parent: parent, root: root, kids: kids, pages: pages, level: level,
             expanded: new Set(), shown: new Map(), pinned: new Map() };
  }
  var views = { path: makeView('path', D.p, 0) };
  if (D.q) { views.depth = makeView('depth', D.q, D.qr); }

  // URLs are rebuilt from path segments, exactly as SiteTree.node_urls does in Python;
  // on demand, so a million-page map does not hold a million URL strings
  var baseMemo = new Map();
  function baseOf(n) {
    // up to the first ancestor whose base is known, then down again (no recursion:
    // a hostile URL can be thousands of segments deep); folders' bases are kept
    var chain = [], a = n, b;
    for (;;) {
      if (kind[a] === KIND_HOST) { b = D.s[a]; break; }
      if (D.p[a] < 0) { b = ''; break; }
      var known = a === n ? undefined : baseMemo.get(a);
      if (known !== undefined) { b = known; break; }
      chain.push(a); a = D.p[a];
    }
    for (var x = chain.length - 1; x >= 0; x--) {
      var c = chain[x];
      if (!(D.k[c] & 16)) { b = b + '/' + D.s[c]; }
      if (x > 0) { baseMemo.set(c, b); }
    }
    return b;
  }
  function urlOf(n) {
    var over = D.u[n];
    if (over !== undefined) { return over; }
    var k = D.k[n];
    return baseOf(n) + ((k & 8) ? '/' : '') + ((k & 16) ? D.s[n] : '');
  }

  // percent-encoded UTF-8 ("caf%C3%A9") is shown decoded ("café"); data keeps the original
  function pretty(s) {
    if (s.indexOf('%') === -1) { return s; }
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }
  function label(n) {
    if (D.t[n]) { return D.t[n]; }
    if (kind[n] === KIND_HOST) { return D.s[n].replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''); }
    if (kind[n] === KIND_SITE) { return 'all hosts'; }
    return pretty(D.s[n]) || '/';
  }
  function pathText(n) {
    var u = urlOf(n), m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(u);
    var p = (m && kind[n] !== KIND_HOST) ? (u.slice(m[0].length) || '/') : u;
    // "/caf%C3%A9/" reads as "/café/" on the card; the details keep the exact URL
    if (p.indexOf('%') !== -1) { try { p = decodeURI(p); } catch (e) { /* not UTF-8: keep it */ } }
    return p;
  }
  function fmt(x) { return x.toLocaleString('en-US'); }
  function trunc(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

  // ---- colours (categories mirror sitemapkit.visual.tree.color_key) ---------------
  var PALETTE = ['#1f77b4', '#d95f02', '#2ca02c', '#d62728', '#7b4fa6', '#8c564b', '#c2188b',
                 '#5f6b00', '#0f8a8a', '#b8860b', '#3949ab', '#e377c2'];
  var GREY = '#8c959f';
  var NOW = Date.parse(D.generated);
  var sectionOf = new Array(N);
  (function () {
    // nodes come in pre-order, so a parent's section is known before its children's
    var P = views.path;
    for (var n = 0; n < N; n++) {
      var lv = P.level[n], pa = D.p[n];
      if (lv < 0) { sectionOf[n] = null; }
      else if (lv === 0) { sectionOf[n] = '/'; }
      else if (lv === 1 && kind[n] === KIND_HOST) {
        // several hosts: the main one keeps plain sections, the others are one section each
        sectionOf[n] = n === D.ph ? '/' : D.s[n].replace(/^[^:]*:\/\//, '');
      } else if (lv === 1 || (lv === 2 && pa === D.ph && kind[pa] === KIND_HOST)) {
        sectionOf[n] = (D.k[n] & 16) ? '/' : D.s[n];
      } else { sectionOf[n] = sectionOf[pa]; }
    }
  })();
  var lastmodCache = [];  // per string: a million pages share a few hundred dates
  function lastmodBucket(text) {
    if (!text) { return 'unknown'; }
    var t = text.trim(), when = NaN;
    if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
      var iso = /T\d/.test(t) && !/(Z|[+-]\d{2}:?\d{2})$/.test(t) ? t + 'Z' : t;
      when = Date.parse(iso);
      if (isNaN(when)) { when = Date.parse(t.slice(0, 10)); }
    }
    if (isNaN(when)) { return 'unknown'; }
    var days = (NOW - when) / 86400000;
    return days < 30 ? '< 30 days' : days < 90 ? '30-90 days' : days < 365 ? '90-365 days' : '> 1 year';
  }
  var MODES = {
    section: { key: function (n) { return sectionOf[n]; }, fixed: null },
    status: {
      key: function (n) { var h = D.h[n]; return h <= 0 ? 'not fetched' : (h >= 100 && h < 600) ? Math.floor(h / 100) + 'xx' : 'other'; },
      fixed: { '2xx': '#2e7d32', '3xx': '#1565c0', '4xx': '#e65100', '5xx': '#c62828', 'not fetched': GREY, '1xx': '#6a1b9a', other: '#4e342e' }
    },
    indexability: {
      key: function (n) { var x = D.x[n]; return x === 2 ? 'unknown' : x === 1 ? 'in sitemap' : 'excluded: ' + (D.S[D.r[n]] || 'no reason given'); },
      fixed: { 'in sitemap': '#2e7d32', unknown: GREY },
      // no greens: an excluded page must never look like one in the sitemap
      palette: ['#c62828', '#d95f02', '#7b4fa6', '#1565c0', '#c2188b', '#8c564b', '#b8860b',
                '#0f8a8a', '#3949ab', '#4e342e', '#e377c2', '#6a1b9a']
    },
    depth: {
      key: function (n) { var d = D.d[n]; return d < 0 ? 'unknown' : d >= 5 ? '5+' : String(d); },
      fixed: { '0': '#08306b', '1': '#08519c', '2': '#2171b5', '3': '#4292c6', '4': '#6baed6', '5+': '#9ecae1', unknown: GREY }
    },
    change: {  // visualize --diff (SiteTree.color_key in Python)
      key: function (n) { return D.S[D.g[n]] || 'unknown'; },
      fixed: { 'new': '#2e7d32', gone: '#c62828', changed: '#d95f02', same: '#9aa4ad', unknown: GREY }
    },
    lastmod: {
      key: function (n) { var x = D.l[n], b = lastmodCache[x]; if (b === undefined) { b = lastmodCache[x] = lastmodBucket(D.S[x]); } return b; },
      fixed: { '< 30 days': '#1b7837', '30-90 days': '#5aae61', '90-365 days': '#d6a100', '> 1 year': '#c2410c', unknown: GREY }
    }
  };
  var colorState = { mode: 'section', keys: null, colors: new Map(), entries: [], only: null };
  function computeColors(mode) {
    var m = MODES[mode], counts = new Map(), keys = new Array(N);
    for (var n = 0; n < N; n++) {
      if (!hasPage[n]) { keys[n] = null; continue; }
      var key = m.key(n); keys[n] = key;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    if (mode === 'section') {  // a first screen: the pages not drawn are in their section
      Object.keys(CUT).forEach(function (c) {
        var sk = sectionOf[+c];
        if (sk !== null && sk !== undefined) { counts.set(sk, (counts.get(sk) || 0) + CUT[c]); }
      });
    }
    var entries = Array.from(counts.entries()).sort(function (a, b) { return (b[1] - a[1]) || String(a[0]).localeCompare(String(b[0]), 'en', { numeric: true }); });
    var colors = new Map(), next = 0, palette = m.palette || PALETTE;
    entries.forEach(function (e) {
      if (m.fixed && m.fixed[e[0]]) { colors.set(e[0], m.fixed[e[0]]); }
      else if (e[0] === 'unknown') { colors.set(e[0], GREY); }
      else if (next < palette.length) { colors.set(e[0], palette[next++]); }
      else if (mode === 'section' && next < 60) {
        // more sections than named colours: spread hues by the golden angle, dark enough to read
        colors.set(e[0], 'hsl(' + Math.round((next++ * 137.508) % 360) + ',55%,38%)');
      } else { colors.set(e[0], GREY); }
    });
    colorState = { mode: mode, keys: keys, colors: colors, entries: entries, only: null };
  }
  function colorOf(n) {
    if (n >= 0 && !hasPage[n] && colorState.mode === 'section' && sectionOf[n] !== null) {
      return colorState.colors.get(sectionOf[n]) || '#d0d7de';
    }
    if (n < 0 || !hasPage[n]) { return '#d0d7de'; }
    return colorState.colors.get(colorState.keys[n]) || GREY;
  }

  // ---- state ------------------------------------------------------------------------
  var layout = document.getElementById('layout').value;
  var view = views[document.getElementById('view').value] || views.path;
  var budget = 5000; // most nodes drawn by expand-all / expand-to-depth
  var matches = null, selected = -1, focusKey = null;
  var visible = [], byKey = new Map();
  var tf = { x: 0, y: 0, k: 1 };

  function shownCount(V, n) { return V.shown.has(n) ? V.shown.get(n) : D.max; }
  // "+N more" opens this many more at a time: a folder of 500,000 pages opens a
  // screenful after another instead of laying out half a million cards at once
  var MORE_STEP = 2000;
  function expandBudget(V, maxLevel, limit) {
    // breadth-first, so a big site opens wide and shallow instead of down one branch
    V.expanded = new Set(); V.shown = new Map(); V.pinned = new Map();
    var queue = [V.root], count = 1, head = 0;
    while (head < queue.length) {
      var n = queue[head++], c = V.kids[n];
      // the hosts a crawl only saw linked stay closed: the map opens on the site
      if (!c || V.level[n] >= maxLevel || kind[n] === KIND_EXTERNAL) { continue; }
      var take = Math.min(c.length, D.max);
      if (count + take > limit && n !== V.root) { break; }
      V.expanded.add(n); count += take + (c.length > take ? 1 : 0);
      for (var a = 0; a < take; a++) { queue.push(c[a]); }
    }
    return count;
  }

  function computeVisible() {
    var V = view, out = [], stack = [{ n: V.root, level: 0, parent: null }];
    byKey = new Map();
    while (stack.length) {
      var it = stack.pop();
      var item = { key: it.more != null ? 'm' + it.more : 'n' + it.n, n: it.more != null ? -1 : it.n,
                   more: it.more != null ? it.more : -1, hidden: it.hidden || 0, pagesHidden: it.pagesHidden || 0,
                   level: it.level, parent: it.parent, kids: [], x: 0, y: 0 };
      out.push(item); byKey.set(item.key, item);
      if (it.parent) { it.parent.kids.push(item); }
      if (item.n < 0) { continue; }
      var c = V.kids[item.n];
      if (!c || !V.expanded.has(item.n)) { continue; }
      var take = Math.min(c.length, shownCount(V, item.n)), push = [];
      for (var a = 0; a < take; a++) { push.push({ n: c[a], level: it.level + 1, parent: item }); }
      if (take < c.length) {
        // children a search revealed beyond the shown ones stand before the group
        var pins = V.pinned.get(item.n) || [], ph = 0, hidden = c.length - take;
        for (var b = take; b < c.length; b++) { ph += V.pages[c[b]]; }
        for (var p = 0; p < pins.length; p++) {
          if (pins[p] < take) { continue; }
          push.push({ n: c[pins[p]], level: it.level + 1, parent: item });
          hidden--; ph -= V.pages[c[pins[p]]];
        }
        if (hidden > 0) { push.push({ more: item.n, hidden: hidden, pagesHidden: ph, level: it.level + 1, parent: item }); }
      }
      for (var z = push.length - 1; z >= 0; z--) { stack.push(push[z]); }
    }
    return out;
  }

  // ---- layout -----------------------------------------------------------------------
  var CARD_W = 240, CARD_H = 48, GAP_X = 64, GAP_Y = 10, KNOB_OUT = 10;
  function doLayout(items) {
    var slot = 0, a;
    for (a = 0; a < items.length; a++) { if (!items[a].kids.length) { items[a].slot = slot++; } }
    for (a = items.length - 1; a >= 0; a--) {
      var it = items[a];
      if (it.kids.length) { it.slot = (it.kids[0].slot + it.kids[it.kids.length - 1].slot) / 2; }
    }
    var maxLevel = 0;
    for (a = 0; a < items.length; a++) { maxLevel = Math.max(maxLevel, items[a].level); }
    if (layout === 'horizontal') {
      items.forEach(function (t) { t.x = t.level * (CARD_W + GAP_X); t.y = t.slot * (CARD_H + GAP_Y); });
    } else if (layout === 'vertical') {
      layoutVertical(items);
    } else {
      // radial: a ring per level, leaves spread evenly; rings widen so labels do not touch
      var need = slot * 18 / (2 * Math.PI);
      var ring = Math.max(130, maxLevel ? need / maxLevel : 0);
      items.forEach(function (t) {
        t.angle = slot > 1 ? (t.slot / slot) * 2 * Math.PI : 0;
        t.r = t.level * ring;
        t.x = t.r * Math.cos(t.angle - Math.PI / 2); t.y = t.r * Math.sin(t.angle - Math.PI / 2);
      });
    }
  }
  // Org chart: siblings side by side, but a node whose children are all leaves stacks
  // them in an indented column under itself, so a wide site does not become a mile wide.
  var COL_INDENT = 28, ROW = CARD_H + 12, LEVEL_GAP = 48, SIB_GAP = 24;
  function layoutVertical(items) {
    var a, t, k;
    for (a = items.length - 1; a >= 0; a--) {
      t = items[a]; t.col = false; t.spine = null;
      if (!t.kids.length) { t.w = CARD_W; continue; }
      t.stack = t.kids.every(function (c) { return !c.kids.length; });
      if (t.stack) { t.w = COL_INDENT + CARD_W; continue; }
      // mixed: branches side by side, and the leaves together in one column after them
      var branches = t.kids.filter(function (c) { return c.kids.length; });
      var leaves = t.kids.length - branches.length;
      var w = SIB_GAP * (branches.length - 1);
      for (k = 0; k < branches.length; k++) { w += branches[k].w; }
      if (leaves) { w += SIB_GAP + COL_INDENT + CARD_W; }
      t.w = Math.max(CARD_W, w);
    }
    items[0].bx = 0; items[0].y = 0;
    for (a = 0; a < items.length; a++) {
      t = items[a];
      if (!t.kids.length || t.stack) { t.x = t.bx; } else { t.x = t.bx + (t.w - CARD_W) / 2; }
      if (!t.kids.length) { continue; }
      if (t.stack) {
        for (k = 0; k < t.kids.length; k++) {
          t.kids[k].bx = t.x + COL_INDENT; t.kids[k].y = t.y + (k + 1) * ROW; t.kids[k].col = true;
        }
        continue;
      }
      var x = t.bx, top = t.y + CARD_H + LEVEL_GAP, row = 0, spine = null;
      for (k = 0; k < t.kids.length; k++) {
        var c = t.kids[k];
        if (c.kids.length) { c.bx = x; c.y = top; x += c.w + SIB_GAP; }
      }
      for (k = 0; k < t.kids.length; k++) {
        var leaf = t.kids[k];
        if (leaf.kids.length) { continue; }
        if (spine === null) { spine = x + COL_INDENT / 2; }
        leaf.bx = x + COL_INDENT; leaf.y = top + row * ROW; leaf.spine = spine; row++;
      }
    }
  }
  function bounds(items) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    items.forEach(function (t) {
      var lab = layout === 'radial' ? 24 + 7 * (t.n >= 0 ? Math.min(30, label(t.n).length) : 14) : 0;
      var w = layout === 'radial' ? lab : CARD_W, h = layout === 'radial' ? lab : CARD_H;
      var ox = layout === 'radial' ? t.x - w : t.x, oy = layout === 'radial' ? t.y - h : t.y - (layout === 'vertical' ? 0 : CARD_H / 2);
      x0 = Math.min(x0, ox); y0 = Math.min(y0, oy);
      x1 = Math.max(x1, layout === 'radial' ? t.x + w : ox + w); y1 = Math.max(y1, layout === 'radial' ? t.y + h : oy + h);
    });
    if (!isFinite(x0)) { return { x: 0, y: 0, w: 1, h: 1 }; }
    return { x: x0 - 20, y: y0 - 20, w: x1 - x0 + 40, h: y1 - y0 + 40 };
  }

  // ---- drawing ----------------------------------------------------------------------
  var svg = document.getElementById('map');
  var gRoot = document.getElementById('viewport');
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVGNS, name);
    for (var key in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, key)) { e.setAttribute(key, attrs[key]); } }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function text(parent, cls, x, y, s, extra) {
    var t = el('text', Object.assign({ 'class': cls, x: x, y: y }, extra || {}), parent);
    t.textContent = s;
    return t;
  }
  function linkPath(a, b) {
    if (layout === 'horizontal') {
      var x0 = a.x + CARD_W + KNOB_OUT + 8, y0 = a.y, x1 = b.x, y1 = b.y, mx = (x0 + x1) / 2;
      return 'M' + x0 + ',' + y0 + 'C' + mx + ',' + y0 + ' ' + mx + ',' + y1 + ' ' + x1 + ',' + y1;
    }
    if (layout === 'vertical' && b.col) {
      return 'M' + (a.x + COL_INDENT / 2) + ',' + (a.y + CARD_H) + 'V' + (b.y + CARD_H / 2) + 'H' + b.x;
    }
    if (layout === 'vertical' && b.spine !== null && b.spine !== undefined) {
      // a leaf in a mixed family: down from the parent to the column's spine, then across
      var px = a.x + CARD_W / 2, py = a.y + CARD_H, top = a.y + CARD_H + LEVEL_GAP, mid = (py + top) / 2;
      return 'M' + px + ',' + py + 'C' + px + ',' + mid + ' ' + b.spine + ',' + mid + ' ' + b.spine + ',' + (top - 6) +
             'V' + (b.y + CARD_H / 2) + 'H' + b.x;
    }
    if (layout === 'vertical') {
      var sx = a.x + CARD_W / 2, sy = a.y + CARD_H, tx = b.x + CARD_W / 2, ty = b.y, my = (sy + ty) / 2;
      return 'M' + sx + ',' + sy + 'C' + sx + ',' + my + ' ' + tx + ',' + my + ' ' + tx + ',' + ty;
    }
    var rm = (a.r + b.r) / 2;
    function pt(ang, r) { return (r * Math.cos(ang - Math.PI / 2)) + ',' + (r * Math.sin(ang - Math.PI / 2)); }
    var a0 = a.r ? a.angle : b.angle;
    return 'M' + pt(a0, a.r) + 'C' + pt(a0, rm) + ' ' + pt(b.angle, rm) + ' ' + pt(b.angle, b.r);
  }
  function nodeClasses(t) {
    var c = 'node';
    if (t.more >= 0) { c += ' more'; }
    else if (!hasPage[t.n]) { c += ' virtual'; }
    if (t.n >= 0 && matches && matches.set.has(t.n)) { c += ' match'; }
    if (t.n >= 0 && t.n === selected) { c += ' sel'; }
    if (t.key === focusKey) { c += ' focus'; }
    if (colorState.only !== null && (t.n < 0 || colorState.keys[t.n] !== colorState.only)) { c += ' dim'; }
    return c;
  }
  function cardLines(t) {
    var V = view;
    if (t.more >= 0) {
      return ['+' + fmt(t.hidden) + ' more', t.hidden > MORE_STEP ? 'click for the next ' + fmt(MORE_STEP) : 'click to show them',
              fmt(t.pagesHidden) + ' pages'];
    }
    var n = t.n, parts = [];
    if (kind[n] === KIND_EXTERNAL) {
      return [label(n), 'outside the crawl, only linked', fmt(V.kids[n].length) + ' hosts \u00b7 ' + fmt(V.pages[n]) + ' URLs'];
    }
    if (D.h[n]) { parts.push(String(D.h[n])); }
    if (D.d[n] >= 0) { parts.push('depth ' + D.d[n]); }
    var c = V.kids[n];
    if (c) { parts.push(fmt(c.length) + ' children'); }
    if (V.pages[n] - hasPage[n] > 0) { parts.push(fmt(V.pages[n] - hasPage[n]) + ' below'); }
    if (!hasPage[n] && kind[n] === KIND_FOLDER) { parts.unshift('folder'); }
    return [label(n), isGroup(n) ? '' : pathText(n), parts.join(' \u00b7 ')];
  }
  function describe(t) {
    var ls = cardLines(t);
    return ls[0] + (ls[1] ? ', ' + ls[1] : '') + (ls[2] ? ', ' + ls[2] : '');
  }

  // Past CULL_AT laid-out nodes only those near the screen are put in the DOM (the
  // screen plus one screen on every side); panning out of that region redraws.  A big
  // expanded tree then costs what is on screen, not what is laid out.
  var CULL_AT = 2000, drawnRegion = null;
  function render() {
    visible = computeVisible();
    doLayout(visible);
    draw(false);
  }
  function itemBox(t) {
    if (layout === 'radial') { return [t.x - 220, t.y - 220, t.x + 220, t.y + 220]; }
    var y0 = layout === 'vertical' ? t.y : t.y - CARD_H / 2;
    return [t.x, y0, t.x + CARD_W + 2 * KNOB_OUT, y0 + CARD_H];
  }
  function viewRegion(margin) {
    var r = stageSize(), w = r.width / tf.k, h = r.height / tf.k;
    var x0 = -tf.x / tf.k, y0 = -tf.y / tf.k;
    return [x0 - margin * w, y0 - margin * h, x0 + w + margin * w, y0 + h + margin * h];
  }
  function inside(box, reg) { return box[2] >= reg[0] && box[0] <= reg[2] && box[3] >= reg[1] && box[1] <= reg[3]; }
  function draw(all) {
    var cull = !all && visible.length > CULL_AT;
    drawnRegion = cull ? viewRegion(1) : null;
    while (gRoot.firstChild) { gRoot.removeChild(gRoot.firstChild); }
    var links = el('g', { 'class': 'links' }, gRoot), nodes = el('g', { 'class': 'nodes' }, gRoot);
    var frag = document.createDocumentFragment(), lfrag = document.createDocumentFragment();
    var V = view, drawn = 0;
    visible.forEach(function (t) {
      var here = !cull || inside(itemBox(t), drawnRegion);
      if (t.parent && (here || (cull && inside(itemBox(t.parent), drawnRegion)))) {
        el('path', { 'class': 'link', d: linkPath(t.parent, t) }, lfrag);
      }
      if (!here) { return; }
      drawn++;
      var g = el('g', { 'class': nodeClasses(t), id: 'node-' + t.key, role: 'treeitem',
                        'aria-level': t.level + 1, transform: 'translate(' + t.x + ',' + t.y + ')', 'data-key': t.key });
      var expandable = t.more >= 0 || (V.kids[t.n] && V.kids[t.n].length > 0) || cutBelow(V, t.n) > 0;
      if (expandable && t.more < 0) { g.setAttribute('aria-expanded', V.expanded.has(t.n) ? 'true' : 'false'); }
      g.setAttribute('aria-label', describe(t));
      if (layout === 'radial') {
        el('circle', { 'class': 'dot', r: t.level === 0 ? 9 : 6, fill: colorOf(t.n) }, g);
        var deg = t.angle * 180 / Math.PI - 90, left = t.level > 0 && (t.angle > Math.PI);
        var rot = left ? deg + 180 : deg;
        var lab = t.more >= 0 ? '+' + fmt(t.hidden) + ' more' : label(t.n);
        if (t.level === 0) { text(g, 'rl', 0, -14, trunc(lab, 40), { 'text-anchor': 'middle' }); }
        else { text(g, 'rl', left ? -10 : 10, 4, trunc(lab, 30), { 'text-anchor': left ? 'end' : 'start', transform: 'rotate(' + rot + ')' }); }
        if (expandable && t.more < 0) { el('circle', { 'class': 'knob', r: 3, cx: 0, cy: 0, 'data-knob': '1', fill: V.expanded.has(t.n) ? '#fff' : '#57606a' }, g); }
      } else {
        var oy = layout === 'vertical' ? 0 : -CARD_H / 2;
        el('rect', { 'class': 'card', x: 0, y: oy, width: CARD_W, height: CARD_H, rx: 5 }, g);
        el('rect', { x: 0, y: oy, width: 6, height: CARD_H, rx: 2, fill: colorOf(t.n) }, g);
        var ls = cardLines(t), thumb = t.n >= 0 ? THUMBS[t.n] : undefined, cut = thumb ? 10 : 0;
        if (thumb) {
          // the page's first screen on the card's right (a data: URL; the CSP allows only those)
          el('image', { 'class': 'thumb', href: thumb, x: CARD_W - 68, y: oy + 4, width: 64, height: 40,
                        preserveAspectRatio: 'xMidYMin slice' }, g);
        }
        text(g, 'l1', 14, oy + 16, trunc(ls[0], 30 - cut));
        text(g, 'l2', 14, oy + 30, trunc(ls[1], 37 - cut));
        // the counts line is never cut: past ~39 characters it is condensed to fit instead
        text(g, 'l3', 14, oy + 43, ls[2], ls[2].length > 39 ? { textLength: CARD_W - 22, lengthAdjust: 'spacingAndGlyphs' } : null);
        if (expandable && t.more < 0) {
          var kx = CARD_W + KNOB_OUT, ky = layout === 'vertical' ? CARD_H / 2 : 0;
          el('circle', { 'class': 'knob', cx: kx, cy: ky, r: 8, 'data-knob': '1' }, g);
          // a path, not a text glyph: thousands of text runs are what makes SVG slow to lay out
          el('path', { 'class': 'knobt', d: 'M' + (kx - 4) + ',' + ky + 'h8' + (V.expanded.has(t.n) ? '' : 'M' + kx + ',' + (ky - 4) + 'v8') }, g);
        }
      }
      frag.appendChild(g);
    });
    links.appendChild(lfrag); nodes.appendChild(frag);
    if (focusKey && byKey.has(focusKey)) { svg.setAttribute('aria-activedescendant', 'node-' + focusKey); }
    var shown = visible.length;
    setStatus(fmt(shown) + ' of ' + fmt(N) + ' nodes shown \u00b7 ' + fmt(D.pages) + ' pages' +
              (cull ? ' (' + fmt(drawn) + ' near the screen drawn)' : '') +
              (PREVIEW ? ' \u00b7 the sections first: the whole map is being built' : ''));
    svg.setAttribute('data-nodes', String(shown));
    svg.setAttribute('data-drawn', String(drawn));
  }
  var statusEl = document.getElementById('status');
  function setStatus(s) { statusEl.textContent = s; }

  // ---- pan & zoom -----------------------------------------------------------------------
  // the stage size is read once and on resize, never right after drawing: reading it
  // then would force the browser to lay out thousands of fresh nodes synchronously
  var stage = null;
  function stageSize() {
    if (!stage) { var r = svg.getBoundingClientRect(); stage = { width: r.width || 800, height: r.height || 600 }; }
    return stage;
  }
  window.addEventListener('resize', function () { stage = null; });
  function applyTransform() {
    gRoot.setAttribute('transform', 'translate(' + tf.x + ',' + tf.y + ') scale(' + tf.k + ')');
    // level of detail: unreadably small lines are not drawn at all (cheaper, less clutter)
    var far = tf.k < 0.45, veryFar = tf.k < 0.22;
    if (svg.classList.contains('far') !== far) { svg.classList.toggle('far', far); }
    if (svg.classList.contains('very-far') !== veryFar) { svg.classList.toggle('very-far', veryFar); }
    var reg = viewRegion(0);
    if (drawnRegion && !(reg[0] >= drawnRegion[0] && reg[1] >= drawnRegion[1] &&
                         reg[2] <= drawnRegion[2] && reg[3] <= drawnRegion[3])) { draw(false); }
  }
  function zoomAt(px, py, factor) {
    var k = Math.max(0.02, Math.min(4, tf.k * factor));
    tf.x = px - (px - tf.x) * (k / tf.k); tf.y = py - (py - tf.y) * (k / tf.k); tf.k = k;
    applyTransform();
  }
  function fit(minScale) {
    var b = bounds(visible), r = stageSize();
    var w = r.width || 800, h = r.height || 600;
    var k = Math.min(w / b.w, h / b.h, 1.2);
    if (minScale && k < minScale) {
      // too big to read when fitted: show the root end of the tree at a readable scale
      k = minScale;
      tf.k = k;
      tf.x = layout === 'vertical' ? w / 2 - (b.x + b.w / 2) * k : -b.x * k + 10;
      tf.y = layout === 'vertical' ? -b.y * k + 10 : h / 2 - (b.y + b.h / 2) * k;
      if (layout === 'horizontal') { var rt = visible[0]; tf.y = h / 2 - rt.y * k; }
      if (layout === 'vertical') { var rv = visible[0]; tf.x = w / 2 - (rv.x + CARD_W / 2) * k; }
      if (layout === 'radial') { tf.x = w / 2; tf.y = h / 2; }
    } else {
      tf.k = k; tf.x = (w - b.w * k) / 2 - b.x * k; tf.y = (h - b.h * k) / 2 - b.y * k;
    }
    applyTransform();
  }
  function centerOn(t) {
    var r = stageSize();
    var cx = layout === 'radial' ? t.x : t.x + CARD_W / 2, cy = layout === 'vertical' ? t.y + CARD_H / 2 : t.y;
    tf.k = Math.max(tf.k, 0.7);
    tf.x = r.width / 2 - cx * tf.k; tf.y = r.height / 2 - cy * tf.k;
    applyTransform();
  }
  function keepInPlace(key, fn, afterKey) {
    // keep the node the user acted on under their pointer while the tree re-lays out
    var before = byKey.get(key), bx = before ? before.x : 0, by = before ? before.y : 0;
    fn();
    var after = byKey.get(afterKey || key);
    if (before && after) { tf.x += (bx - after.x) * tf.k; tf.y += (by - after.y) * tf.k; applyTransform(); }
  }
  var pointers = new Map(), panStart = null, moved = false;
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var r = svg.getBoundingClientRect();
    zoomAt(e.clientX - r.left, e.clientY - r.top, Math.pow(1.0015, -e.deltaY * (e.deltaMode === 1 ? 30 : 1)));
  }, { passive: false });
  svg.addEventListener('pointerdown', function (e) {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    moved = false;
    if (pointers.size === 1) { panStart = { x: e.clientX, y: e.clientY, tx: tf.x, ty: tf.y }; }
  });
  svg.addEventListener('pointermove', function (e) {
    if (!pointers.has(e.pointerId)) { return; }
    var prev = pointers.get(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) {
      var pts = Array.from(pointers.values()), other = pts[0] === pointers.get(e.pointerId) ? pts[1] : pts[0];
      var d0 = Math.hypot(prev.x - other.x, prev.y - other.y), d1 = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      var r = svg.getBoundingClientRect();
      if (d0 > 0) { zoomAt((e.clientX + other.x) / 2 - r.left, (e.clientY + other.y) / 2 - r.top, d1 / d0); }
      moved = true; return;
    }
    if (panStart && (moved || Math.abs(e.clientX - panStart.x) + Math.abs(e.clientY - panStart.y) > 4)) {
      if (!moved) { svg.setPointerCapture(e.pointerId); svg.classList.add('panning'); }
      moved = true;
      tf.x = panStart.tx + e.clientX - panStart.x; tf.y = panStart.ty + e.clientY - panStart.y;
      applyTransform();
    }
  });
  function endPointer(e) {
    pointers.delete(e.pointerId);
    if (!pointers.size) { panStart = null; svg.classList.remove('panning'); }
  }
  svg.addEventListener('pointerup', endPointer);
  svg.addEventListener('pointercancel', endPointer);

  // ---- acting on nodes --------------------------------------------------------------------
  function toggle(t) {
    var V = view;
    if (t.more >= 0) {
      // the first child that was hidden takes the group's place on screen
      var c = V.kids[t.more], was = Math.min(c.length, shownCount(V, t.more)), first = c[was];
      keepInPlace(t.key, function () { V.shown.set(t.more, Math.min(c.length, was + MORE_STEP)); render(); }, 'n' + first);
      focusKey = 'n' + first;
      restyle();
      return;
    }
    if (!V.kids[t.n]) { if (cutBelow(V, t.n)) { wantWhole(t.n); } return; }
    keepInPlace(t.key, function () {
      if (V.expanded.has(t.n)) { V.expanded.delete(t.n); } else { V.expanded.add(t.n); }
      render();
    });
  }
  // a section of a first screen opens in the whole map: the app (the parent page)
  // shows it as soon as it is built
  function wantWhole(n) {
    setStatus('Opening ' + label(n) + ': the whole map is being built\u2026');
    if (window.parent !== window) { window.parent.postMessage({ sitemapkit: 'whole-map' }, location.origin); }
  }
  function select(n) {
    selected = n;
    showDetails(n);
    restyle();
  }
  function restyle() {
    // class changes only (selection, focus): no re-layout, cheap on big trees
    var gs = gRoot.querySelectorAll('.node');
    for (var a = 0; a < gs.length; a++) {
      var t = byKey.get(gs[a].getAttribute('data-key'));
      if (t) { gs[a].setAttribute('class', nodeClasses(t)); }
    }
    if (focusKey && byKey.has(focusKey)) { svg.setAttribute('aria-activedescendant', 'node-' + focusKey); }
  }
  // the full title and URL as a native tooltip, made only for the node under the pointer
  svg.addEventListener('mouseover', function (e) {
    var g = e.target.closest && e.target.closest('.node');
    if (!g || g.querySelector('title')) { return; }
    var t = byKey.get(g.getAttribute('data-key'));
    if (!t) { return; }
    var tip = el('title', {}, null);
    tip.textContent = t.n >= 0 ? label(t.n) + '\n' + urlOf(t.n) : cardLines(t)[0];
    g.insertBefore(tip, g.firstChild);
  });
  svg.addEventListener('click', function (e) {
    if (moved) { return; }
    var g = e.target.closest && e.target.closest('.node');
    if (!g) { return; }
    var t = byKey.get(g.getAttribute('data-key'));
    if (!t) { return; }
    focusKey = t.key;
    if (t.more >= 0 || e.target.getAttribute('data-knob')) { toggle(t); return; }
    select(t.n);
  });

  // double-click a card to expand or collapse it (a single click only selects)
  svg.addEventListener('dblclick', function (e) {
    var g = e.target.closest && e.target.closest('.node');
    var t = g && byKey.get(g.getAttribute('data-key'));
    if (t && t.more < 0 && !e.target.getAttribute('data-knob')) { e.preventDefault(); toggle(t); }
  });

  // keyboard: arrows walk the visible tree (WAI-ARIA tree pattern), Enter toggles,
  // Space shows details, +/- zoom, 0 fits, / jumps to search.
  svg.addEventListener('keydown', function (e) {
    var t = byKey.get(focusKey) || visible[0], V = view, next = null;
    if (!t) { return; }
    var idx = visible.indexOf(t);
    switch (e.key) {
      case 'ArrowDown': next = visible[Math.min(visible.length - 1, idx + 1)]; break;
      case 'ArrowUp': next = visible[Math.max(0, idx - 1)]; break;
      case 'ArrowRight':
        if (t.more >= 0) { toggle(t); next = byKey.get(focusKey); break; }
        if ((V.kids[t.n] || cutBelow(V, t.n)) && !V.expanded.has(t.n)) { toggle(t); next = byKey.get(t.key); }
        else if (t.kids.length) { next = t.kids[0]; }
        break;
      case 'ArrowLeft':
        if (t.n >= 0 && V.expanded.has(t.n)) { toggle(t); next = byKey.get(t.key); } else if (t.parent) { next = t.parent; }
        break;
      case 'Home': next = visible[0]; break;
      case 'End': next = visible[visible.length - 1]; break;
      case 'Enter': toggle(t); next = byKey.get(focusKey) || byKey.get(t.key); break;
      case ' ': if (t.n >= 0) { select(t.n); } next = byKey.get(t.key); break;
      case '+': case '=': zoomAt(stageSize().width / 2, stageSize().height / 2, 1.25); break;
      case '-': zoomAt(stageSize().width / 2, stageSize().height / 2, 0.8); break;
      case '0': fit(0); break;
      case '/': document.getElementById('search').focus(); break;
      default: return;
    }
    e.preventDefault();
    if (next) { focusKey = next.key; restyle(); ensureVisible(byKey.get(focusKey)); }
  });
  svg.addEventListener('focus', function () {
    if (!focusKey || !byKey.has(focusKey)) { focusKey = visible.length ? visible[0].key : null; restyle(); }
  });
  function ensureVisible(t) {
    if (!t) { return; }
    var r = stageSize(), sx = t.x * tf.k + tf.x, sy = t.y * tf.k + tf.y;
    if (sx < 20 || sy < 20 || sx > r.width - 60 || sy > r.height - 40) { centerOn(t); }
  }

  // ---- details panel ------------------------------------------------------------------------
  var details = document.getElementById('details');
  function safeHref(u) { return /^https?:\/\//i.test(u) ? u : null; }
  function showDetails(n) {
    while (details.firstChild) { details.removeChild(details.firstChild); }
    if (n < 0) { return; }
    var h = document.createElement('h2'); h.textContent = 'Details'; details.appendChild(h);
    var p = document.createElement('p'); p.className = 'title'; p.textContent = label(n); details.appendChild(p);
    if (THUMBS[n]) {
      var img = document.createElement('img'); img.className = 'thumb'; img.src = THUMBS[n];
      img.alt = 'First screen of the page'; img.width = 256; img.height = 160; details.appendChild(img);
    }
    var dl = document.createElement('dl');
    function row(k, v, link) {
      if (v === '' || v === null || v === undefined) { return; }
      var dt = document.createElement('dt'); dt.textContent = k;
      var dd = document.createElement('dd');
      var href = link ? safeHref(String(v)) : null;
      if (href) {
        var a = document.createElement('a'); a.href = href; a.target = '_blank'; a.rel = 'noopener noreferrer';
        a.textContent = String(v); dd.appendChild(a);
      } else { dd.textContent = String(v); }
      dl.appendChild(dt); dl.appendChild(dd);
    }
    var V = view;
    if (hasPage[n]) {
      row('URL', urlOf(n), true);
      row('Status', D.h[n] || 'not fetched');
      row('Depth', D.d[n] >= 0 ? D.d[n] : 'unknown');
      row('In sitemap', D.x[n] === 2 ? 'unknown' : D.x[n] === 1 ? 'yes' : 'no');
      row('Excluded because', D.S[D.r[n]]);
      row('Canonical', D.cn[n], true);
      row('Redirects to', D.rd[n], true);
      row('Inlinks', fmt(D.i[n])); row('Outlinks', fmt(D.o[n]));
      row('Last modified', D.l[n] ? D.S[D.l[n]] + (D.ls[n] ? ' (from ' + D.S[D.ls[n]] + ')' : '') : '');
      row('Content type', D.S[D.c[n]]);
      row('Change', D.S[D.g[n]]); row('What changed', D.S[D.gw[n]]);
      renderRows(n, row);
    } else {
      if (!isGroup(n)) { row('Path', urlOf(n)); }
      row('Kind', kind[n] === KIND_EXTERNAL ? 'hosts outside the crawl\u2019s scope, only linked from it'
        : kind[n] === KIND_GROUP ? 'group' : 'folder (no page of its own)');
    }
    row('Section', sectionOf[n]);
    row('Children', V.kids[n] ? fmt(V.kids[n].length) : '0');
    row('Pages below', fmt(V.pages[n] - hasPage[n]));
    if (views.depth && D.q[n] >= 0 && hasPage[D.q[n]]) { row('Found from', urlOf(D.q[n]), true); }
    details.appendChild(dl);
    if (V.kids[n]) { details.appendChild(breakdown(n)); }
    if (hasPage[n] && safeHref(urlOf(n))) {
      var op = document.createElement('p'), a = document.createElement('a');
      a.href = urlOf(n); a.target = '_blank'; a.rel = 'noopener noreferrer'; a.textContent = 'Open the page \u2197';
      op.appendChild(a); details.appendChild(op);
    }
  }

  // Rendered or not, and why (crawl --render); the links only rendering found.
  var RENDER_WHY = {
    always: '--render always', 'app-shell': 'its raw HTML is an application shell',
    'section-sample': 'a sample of its section', 'section-needs-js': 'its section needs scripts for links',
    'scripts-write-markup': 'its inline scripts write markup'
  };
  function renderRows(n, row) {
    var r = RENDERED[n];
    if (r) {
      var how = r[0] === 'rendered' ? 'yes' : r[0] === 'render-unavailable' ? 'no: needed, but rendering is not installed' : r[0];
      row('Rendered', how + (r[1] ? ' (' + (RENDER_WHY[r[1]] || r[1]) + ')' : ''));
      if (r[2]) {
        row('Links only rendering found', fmt(r[2]));
        for (var a = 3; a < r.length; a++) { row(a === 3 ? 'Found by rendering' : '', r[a], true); }
        if (r[2] > r.length - 3) { row('', '\u2026 and ' + fmt(r[2] - (r.length - 3)) + ' more'); }
      }
      return;
    }
    if (!D.rm || !/html/.test(D.S[D.c[n]] || '') || D.h[n] !== 200) { return; }
    if (D.rm === 'never') { row('Rendered', 'no (crawled without --render)'); }
    else if (D.S[D.r[n]] === 'noindex') { row('Rendered', 'no: its raw HTML says noindex (Google does not render those)'); }
    else if (D.rm === 'auto') { row('Rendered', 'no: not an application shell, and its scripts write no markup (or its section\u2019s sample found no links the raw HTML lacked)'); }
    else { row('Rendered', 'no (cut too large to render)'); }
  }

  // pages below a node per colour of the current mode (tree.color_counts(under=n) in Python)
  function breakdown(n) {
    var counts = new Map(), stack = [n], V = view;
    while (stack.length) {
      var m = stack.pop(), c = V.kids[m];
      if (hasPage[m]) { counts.set(colorState.keys[m], (counts.get(colorState.keys[m]) || 0) + 1); }
      if (c) { for (var x = 0; x < c.length; x++) { stack.push(c[x]); } }
    }
    var box = document.createElement('div'); box.id = 'breakdown';
    var h = document.createElement('h2'); h.textContent = 'Pages here by ' + colorState.mode; box.appendChild(h);
    var ul = document.createElement('ul');
    Array.from(counts.entries()).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 12).forEach(function (e) {
      var li = document.createElement('li'); li.setAttribute('data-key', e[0]);
      var sw = document.createElement('span'); sw.className = 'sw'; sw.style.background = colorState.colors.get(e[0]) || GREY;
      var lb = document.createElement('span'); lb.className = 'lbl'; lb.textContent = pretty(String(e[0]));
      var k = document.createElement('span'); k.className = 'n'; k.textContent = fmt(e[1]);
      li.appendChild(sw); li.appendChild(lb); li.appendChild(k); ul.appendChild(li);
    });
    box.appendChild(ul);
    return box;
  }

  // ---- legend ---------------------------------------------------------------------------------
  var legend = document.getElementById('legend');
  function renderLegend() {
    var ul = legend.querySelector('ul');
    while (ul.firstChild) { ul.removeChild(ul.firstChild); }
    var shown = 0, rest = 0;
    colorState.entries.forEach(function (e) {
      if (shown >= 30) { rest += e[1]; return; }
      shown++;
      var li = document.createElement('li');
      li.setAttribute('data-key', e[0]); li.tabIndex = 0; li.setAttribute('role', 'button');
      if (colorState.only === e[0]) { li.className = 'on'; }
      var sw = document.createElement('span'); sw.className = 'sw'; sw.style.background = colorState.colors.get(e[0]);
      var lb = document.createElement('span'); lb.className = 'lbl'; lb.textContent = pretty(String(e[0])); lb.title = e[0];
      var n = document.createElement('span'); n.className = 'n'; n.textContent = fmt(e[1]);
      li.appendChild(sw); li.appendChild(lb); li.appendChild(n); ul.appendChild(li);
    });
    if (rest) { var li2 = document.createElement('li'); li2.textContent = '\u2026 ' + fmt(rest) + ' pages in other groups'; ul.appendChild(li2); }
  }
  function legendPick(e) {
    var li = e.target.closest('li[data-key]');
    if (!li) { return; }
    var key = li.getAttribute('data-key');
    colorState.only = colorState.only === key ? null : key;
    renderLegend(); render();
  }
  legend.addEventListener('click', legendPick);
  legend.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); legendPick(e); } });

  // ---- search ---------------------------------------------------------------------------------
  var results = document.getElementById('results'), searchBox = document.getElementById('search');
  var searchTimer = 0, matchPos = -1;
  function reveal(n) {
    // expand every ancestor and widen any "+N more" group hiding the way down
    var V = view, chain = [], a = n;
    while (a >= 0 && a !== V.root) { chain.push(a); a = V.parent[a]; }
    if (a !== V.root) { return false; }
    for (var x = chain.length - 1; x >= 0; x--) {
      var c = chain[x], pa = V.parent[c];
      V.expanded.add(pa);
      var pos = V.kids[pa].indexOf(c);
      if (pos >= shownCount(V, pa)) {
        // pinned beside the shown children, not "show everything up to it": the way to
        // page 400,000 of one folder must not lay out the 399,999 before it
        var pins = V.pinned.get(pa) || [];
        if (pins.indexOf(pos) === -1) { pins.push(pos); pins.sort(function (u, v) { return u - v; }); }
        V.pinned.set(pa, pins);
      }
    }
    return true;
  }
  // Which nodes' title or URL holds q. A node's URL starts with its parent's (a query
  // form's with its path), so a match in the parent is a match below it; a q without
  // '/', '?' or '#' cannot span two segments, so only each node's own segment is
  // searched (no million URL strings are made). Stored whole URLs are searched as they are.
  var segLow = null, titleLow = null;
  function searchHits(q) {
    var hit = new Uint8Array(N), plain = !/[\/?#]/.test(q), a;
    if (!segLow) {
      segLow = new Array(N); titleLow = new Array(N);
      for (a = 0; a < N; a++) { segLow[a] = D.s[a].toLowerCase(); titleLow[a] = D.t[a] ? D.t[a].toLowerCase() : ''; }
    }
    for (a = 0; a < N; a++) {
      if (isGroup(a)) { continue; }
      var pa = D.p[a], own;
      if (D.u[a] !== undefined) {
        // a stored URL is not the prefix of its children's: a hit here is not passed on (3)
        hit[a] = D.u[a].toLowerCase().indexOf(q) !== -1 ? 3 : 0;
        if (hit[a] || !titleLow[a] || titleLow[a].indexOf(q) === -1) { continue; }
        hit[a] = 2; continue;
      }
      if (pa >= 0 && hit[pa] === 1) { own = true; }
      else if (plain && (pa < 0 || D.u[pa] === undefined)) { own = segLow[a].indexOf(q) !== -1; }
      else { own = urlOf(a).toLowerCase().indexOf(q) !== -1; }
      hit[a] = own ? 1 : (titleLow[a] && titleLow[a].indexOf(q) !== -1) ? 2 : 0;
    }
    return hit;
  }
  function runSearch(q) {
    q = q.trim().toLowerCase();
    while (results.firstChild) { results.removeChild(results.firstChild); }
    matchPos = -1;
    if (!q) { matches = null; render(); return; }
    var hit = searchHits(q), list = [];
    for (var b = 0; b < N; b++) { if (hit[b] && view.level[b] >= 0) { list.push(b); } }
    matches = { list: list, set: new Set(list) };
    var h2 = document.createElement('h2'); h2.textContent = 'Search'; results.appendChild(h2);
    var head = document.createElement('p'); head.className = 'hint';
    head.textContent = fmt(list.length) + ' match' + (list.length === 1 ? '' : 'es') + (list.length > 25 ? ' (first 25 revealed)' : '');
    results.appendChild(head);
    var ul = document.createElement('ul');
    list.slice(0, 25).forEach(function (n) { reveal(n); });
    list.slice(0, 100).forEach(function (n) {
      var li = document.createElement('li'), btn = document.createElement('button');
      btn.type = 'button'; btn.setAttribute('data-n', String(n));
      btn.textContent = trunc(label(n), 60);
      var sp = document.createElement('div'); sp.className = 'url'; sp.textContent = trunc(urlOf(n), 70);
      btn.appendChild(sp); li.appendChild(btn); ul.appendChild(li);
    });
    results.appendChild(ul);
    render();
  }
  function goTo(n) {
    reveal(n); selected = n; focusKey = 'n' + n; render(); showDetails(n);
    var t = byKey.get('n' + n); if (t) { centerOn(t); }
  }
  results.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-n]');
    if (b) { goTo(+b.getAttribute('data-n')); }
  });
  searchBox.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { runSearch(searchBox.value); }, 120);
  });
  searchBox.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') {
      e.preventDefault(); clearTimeout(searchTimer);
      if (!matches || searchBox.getAttribute('data-q') !== searchBox.value) { runSearch(searchBox.value); searchBox.setAttribute('data-q', searchBox.value); }
      if (matches && matches.list.length) { matchPos = (matchPos + 1) % matches.list.length; goTo(matches.list[matchPos]); }
    } else if (e.key === 'Escape') { searchBox.value = ''; runSearch(''); }
  });

  // ---- toolbar --------------------------------------------------------------------------------
  function byId(id) { return document.getElementById(id); }
  function initialOpen() { expandBudget(view, 99, 40); render(); fit(0.45); }
  byId('view').addEventListener('change', function (e) {
    view = views[e.target.value] || views.path;
    if (!view.expanded.size) { expandBudget(view, 99, 40); }
    if (matches) { runSearch(searchBox.value); }
    render(); fit(0.45);
  });
  byId('layout').addEventListener('change', function (e) { layout = e.target.value; render(); fit(0.45); });
  byId('color').addEventListener('change', function (e) {
    computeColors(e.target.value); renderLegend(); render();
    if (selected >= 0) { showDetails(selected); }
  });
  byId('fit').addEventListener('click', function () { fit(0); });
  byId('expand-all').addEventListener('click', function () {
    var count = expandBudget(view, 1e9, budget); render(); fit(0.3);
    if (count >= budget) { setStatus(statusEl.textContent + ' \u00b7 stopped at ' + fmt(budget) + ' nodes; expand branches to see more'); }
  });
  byId('collapse-all').addEventListener('click', function () { view.expanded = new Set([view.root]); view.shown = new Map(); view.pinned = new Map(); render(); fit(0.45); });
  byId('expand-depth').addEventListener('click', function () {
    var lv = Math.max(0, parseInt(byId('depth-n').value, 10) || 0);
    expandBudget(view, lv, budget); render(); fit(0.3);
  });

  // ---- export ---------------------------------------------------------------------------------
  function download(blob, name) {
    var a = document.createElement('a'), href = URL.createObjectURL(blob);
    a.href = href; a.download = name; document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(href); }, 10000);
  }
  function fileBase() { return (D.title || 'site-map').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'site-map'; }
  function svgText() {
    // an export holds the whole laid-out tree, not only what is near the screen
    var culled = drawnRegion !== null;
    if (culled) { draw(true); }
    var b = bounds(visible), clone = svg.cloneNode(true);
    if (culled) { draw(false); }
    clone.removeAttribute('id'); clone.removeAttribute('class'); clone.removeAttribute('tabindex'); clone.removeAttribute('aria-activedescendant');
    clone.setAttribute('xmlns', SVGNS);
    clone.setAttribute('viewBox', b.x + ' ' + b.y + ' ' + b.w + ' ' + b.h);
    clone.setAttribute('width', String(Math.ceil(b.w))); clone.setAttribute('height', String(Math.ceil(b.h)));
    clone.querySelector('#viewport').removeAttribute('transform');
    var style = document.createElementNS(SVGNS, 'style');
    style.textContent = document.getElementById('app-style').textContent;
    clone.insertBefore(style, clone.firstChild);
    var bg = document.createElementNS(SVGNS, 'rect');
    bg.setAttribute('x', b.x); bg.setAttribute('y', b.y); bg.setAttribute('width', b.w); bg.setAttribute('height', b.h); bg.setAttribute('fill', '#fff');
    clone.insertBefore(bg, style.nextSibling);
    return { text: new XMLSerializer().serializeToString(clone), w: b.w, h: b.h };
  }
  byId('export-svg').addEventListener('click', function () {
    download(new Blob([svgText().text], { type: 'image/svg+xml' }), fileBase() + '.svg');
  });
  byId('export-png').addEventListener('click', function () {
    var s = svgText(), img = new Image();
    var scale = Math.min(2, 16000 / s.w, 16000 / s.h, Math.sqrt(120e6 / (s.w * s.h)));
    var src = URL.createObjectURL(new Blob([s.text], { type: 'image/svg+xml' }));
    img.onload = function () {
      var c = document.createElement('canvas');
      c.width = Math.max(1, Math.floor(s.w * scale)); c.height = Math.max(1, Math.floor(s.h * scale));
      var ctx = c.getContext('2d'); ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, c.width, c.height);
      ctx.drawImage(img, 0, 0, c.width, c.height);
      URL.revokeObjectURL(src);
      c.toBlob(function (blob) { if (blob) { download(blob, fileBase() + '.png'); } }, 'image/png');
    };
    img.onerror = function () { setStatus('PNG export failed: the browser could not draw the SVG'); };
    img.src = src;
  });
  byId('export-json').addEventListener('click', function () {
    // the whole tree of the current view, not only what is expanded
    var V = view;
    function rec(n) {
      var o = { url: urlOf(n), title: D.t[n] || null, kind: ['page', 'folder', 'host', 'site', 'group', 'external'][kind[n]], pages: V.pages[n] };
      if (hasPage[n]) {
        o.status = D.h[n] || null; o.depth = D.d[n] >= 0 ? D.d[n] : null;
        o.indexable = D.x[n] === 2 ? null : D.x[n] === 1; o.reason = D.S[D.r[n]] || null;
        o.inlinks = D.i[n]; o.outlinks = D.o[n]; o.lastmod = D.S[D.l[n]] || null;
        if (D.g[n]) { o.change = D.S[D.g[n]]; o.changes = D.S[D.gw[n]] || null; }  // --diff
      }
      return o;
    }
    var top = rec(V.root), stack = [[V.root, top]];
    while (stack.length) {
      var pair = stack.pop(), c = V.kids[pair[0]];
      if (!c) { continue; }
      pair[1].children = c.map(function (x) { var o = rec(x); stack.push([x, o]); return o; });
    }
    var doc = { title: D.title, generated: D.generated, view: V.name, pages: D.pages, tree: top };
    download(new Blob([JSON.stringify(doc)], { type: 'application/json' }), fileBase() + '.json');
  });

  // ---- start ------------------------------------------------------------------------------------
  if (!views.depth) { var opt = byId('view').querySelector('option[value=depth]'); if (opt) { opt.remove(); } }
  computeColors(byId('color').value);
  renderLegend();
  stageSize();
  initialOpen();
  if (PREVIEW) {
    document.documentElement.setAttribute('data-preview', '1');
    // a hand on the sections, marked from the first moment the map can take one: the app
    // (the parent page, views/map.js) then keeps them until asked, whenever its own listeners came
    var touched = function () { document.documentElement.setAttribute('data-touched', '1'); };
    document.addEventListener('pointerdown', touched, true);
    document.addEventListener('keydown', touched, true);
  }
  document.documentElement.setAttribute('data-ready', '1');
  // "painted" is when the first frame with the map is on screen (bench/visual_bench.py)
  if (window.performance && performance.mark) {
    performance.mark('sitemapkit-ready');
    requestAnimationFrame(function () { setTimeout(function () { performance.mark('sitemapkit-painted'); }, 0); });
  }
}
})();
