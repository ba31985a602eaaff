/* Pages: the inventory as a table. The server filters, searches and sorts (API.md
 * /pages); the browser asks only for the blocks of rows near the screen and keeps a
 * few dozen row elements that it moves and refills as you scroll, so 100,000 rows
 * scroll as smoothly as 100 and the first screen comes after one small request. */
import { get, sitePath } from '../api.js';
import { clear, el, facts, fmt } from '../dom.js';

const ROW_H = 28;
const BLOCK = 500;
const COLUMNS = [
  { key: 'status', label: 'Status', cls: 'num' },
  { key: 'url', label: 'URL', cls: 'url' },
  { key: 'title', label: 'Title', cls: 'title' },
  { key: 'depth', label: 'Depth', cls: 'num' },
  { key: 'reason', label: 'In sitemap / reason', cls: 'reason' },
  { key: 'inlinks', label: 'In', cls: 'num', title: 'links to the page' },
  { key: 'outlinks', label: 'Out', cls: 'num', title: 'links on the page' },
  { key: 'lastmod', label: 'Lastmod', cls: 'date' },
];

function select(name, label, first) {
  const s = el('select', { name, 'aria-label': label }, el('option', { value: '', text: first }));
  return s;
}

export function mount(main, ctx) {
  const id = ctx.site;
  const search = el('input', { type: 'search', name: 'q', placeholder: 'Search URL or title  ( / )', autocomplete: 'off', 'aria-label': 'Search URL or title' });
  const reason = select('reason', 'Filter by reason', 'every reason');
  const status = select('status', 'Filter by status', 'every status');
  const section = select('section', 'Filter by section', 'every section');
  const csv = el('a', { className: 'button', download: id + '-inventory.csv', text: 'Export CSV' });
  const count = el('span', { className: 'count', role: 'status', 'aria-live': 'polite' });
  const head = el('div', { className: 'vt-row vt-head', role: 'row' });
  const spacer = el('div', { className: 'vt-spacer' });
  const body = el('div', { className: 'vt-body', role: 'rowgroup' });
  const scroller = el('div', { className: 'vt', tabindex: '0', role: 'table', 'aria-label': 'Pages', 'aria-rowcount': '0' }, head, el('div', { className: 'vt-canvas' }, spacer, body));
  const detail = el('aside', { className: 'panel page-detail', 'aria-live': 'polite' }, el('h2', { text: 'Page' }),
    el('p', { className: 'hint', text: 'Click a row (or move with the arrow keys and press Enter) to see why the crawl decided what it did.' }));
  main.appendChild(el('div', { className: 'view-head compact' }, el('h1', { text: 'Pages' }), count, el('span', { className: 'spacer' }), csv));
  main.appendChild(el('div', { className: 'filters', role: 'search' }, search, reason, status, section));
  main.appendChild(el('div', { className: 'pages-layout' }, scroller, detail));

  const q = { sort: '', order: 'asc', q: '', reason: ctx.params.get('reason') || '', status: ctx.params.get('status') || '', section: ctx.params.get('section') || '' };
  search.value = ctx.params.get('q') || '';
  q.q = search.value;
  let total = 0, blocks = new Map(), loading = new Set(), generation = 0, current = -1, pool = [], stopped = false, firstDone = false;
  let facetsShown = false, facetsAsked = false, frame = 0, wantTimer = 0;

  for (const c of COLUMNS) {
    const b = el('button', { type: 'button', className: 'sort', 'data-sort': c.key, title: c.title || null, text: c.label });
    b.addEventListener('click', () => {
      if (q.sort === c.key) { q.order = q.order === 'asc' ? 'desc' : 'asc'; } else { q.sort = c.key; q.order = 'asc'; }
      restart();
    });
    head.appendChild(el('div', { className: 'vt-cell ' + c.cls, role: 'columnheader', 'data-col': c.key }, b));
  }

  function params(extra) {
    const p = new URLSearchParams();
    for (const k of ['sort', 'q', 'reason', 'status', 'section']) { if (q[k]) { p.set(k, q[k]); } }
    if (q.sort || q.order === 'desc') { p.set('order', q.order); }
    for (const [k, v] of Object.entries(extra || {})) { p.set(k, String(v)); }
    return p.toString();
  }
  function fillFacets(f) {
    if (facetsShown || !f) { return; }
    facetsShown = true;
    const add = (sel, obj, label) => {
      for (const [k, n] of Object.entries(obj || {})) {
        sel.appendChild(el('option', { value: k, text: label(k) + ' (' + fmt(n) + ')' }));
      }
    };
    add(reason, f.reasons, (k) => k === 'indexable' ? 'in the sitemap' : k);
    add(status, f.statuses, (k) => k === 'none' ? 'not fetched' : k);
    add(section, f.sections, (k) => k === '' ? '/ (home)' : '/' + k + '/');
    reason.value = q.reason; status.value = q.status; section.value = q.section;
  }
  // the first rows came from the store's head before the server read the whole table:
  // the filter menus' counts follow once it has (API.md /pages, wait=1)
  async function askFacets() {
    try {
      const d = await get(sitePath(id, '/pages?limit=1&wait=1'));
      if (!stopped) { fillFacets(d.facets); }
    } catch (e) { facetsAsked = false; }
  }
  function markSort() {
    for (const cell of head.children) {
      const key = cell.getAttribute('data-col');
      if (key === q.sort) { cell.setAttribute('aria-sort', q.order === 'asc' ? 'ascending' : 'descending'); } else { cell.removeAttribute('aria-sort'); }
    }
  }

  async function fetchBlock(b) {
    if (loading.has(b) || blocks.has(b)) { return; }
    loading.add(b);
    const gen = generation;
    try {
      const d = await get(sitePath(id, '/pages?' + params({ offset: b * BLOCK, limit: BLOCK })));
      if (gen !== generation || stopped) { return; }
      blocks.set(b, d.rows);
      total = d.total;
      count.textContent = fmt(d.total) + (d.total === d.all ? ' pages' : ' of ' + fmt(d.all) + ' pages');
      scroller.setAttribute('aria-rowcount', String(d.total));
      spacer.style.height = (d.total * ROW_H) + 'px';
      fillFacets(d.facets);
      if (!d.facets && !facetsAsked) { facetsAsked = true; askFacets(); }
      schedule();
    } catch (e) {
      if (gen === generation) { count.textContent = e.message; count.className = 'count error'; }
    } finally { if (gen === generation) { loading.delete(b); } }
  }

  function restart() {
    generation++;
    blocks = new Map(); loading = new Set(); current = -1;
    csv.setAttribute('href', sitePath(id, '/pages.csv?' + params()));
    markSort();
    scroller.scrollTop = 0;
    fetchBlock(0);
  }

  function setCell(cell, c, r) {
    let text = '';
    if (c.key === 'reason') { text = r.indexable ? 'in sitemap' : (r.reason || ''); cell.className = 'vt-cell reason' + (r.indexable ? ' yes' : ''); }
    else { const v = r[c.key]; text = v === null || v === undefined ? '' : String(v); }
    if (c.key === 'status') { cell.className = 'vt-cell num status s' + (r.status ? String(r.status)[0] : '0'); }
    cell.textContent = text;
    if (c.key === 'url' || c.key === 'title') { cell.title = text; }
  }
  function rowEl() {
    const row = el('div', { className: 'vt-row', role: 'row' });
    for (const c of COLUMNS) { row.appendChild(el('div', { className: 'vt-cell ' + c.cls, role: 'cell' })); }
    row.addEventListener('click', () => { const i = +row.getAttribute('data-i'); setCurrent(i); openRow(i); });
    return row;
  }
  function rowAt(i) { const b = blocks.get(Math.floor(i / BLOCK)); return b ? b[i % BLOCK] : undefined; }

  function draw() {
    frame = 0;
    const top = scroller.scrollTop, height = scroller.clientHeight - ROW_H;
    const first = Math.max(0, Math.floor(top / ROW_H) - 4);
    const last = Math.min(total, Math.ceil((top + height) / ROW_H) + 4);
    const need = last - first;
    while (pool.length < need) { const r = rowEl(); pool.push(r); body.appendChild(r); }
    const missing = new Set();
    for (let k = 0; k < pool.length; k++) {
      const row = pool[k], i = first + k;
      if (i >= last) { row.hidden = true; continue; }
      row.hidden = false;
      row.style.transform = 'translateY(' + (i * ROW_H) + 'px)';
      row.setAttribute('data-i', String(i));
      row.setAttribute('aria-rowindex', String(i + 2));
      row.classList.toggle('current', i === current);
      const r = rowAt(i);
      if (!r) {
        missing.add(Math.floor(i / BLOCK));
        row.classList.add('loading');
        for (const cell of row.children) { cell.textContent = ''; }
        continue;
      }
      row.classList.remove('loading');
      COLUMNS.forEach((c, x) => setCell(row.children[x], c, r));
    }
    if (missing.size) {
      // while the scrollbar is dragged, ask only for where it stops: a request per block
      // passed on the way would queue up on the server behind the one that matters
      clearTimeout(wantTimer);
      wantTimer = setTimeout(wanted, blocks.size ? 120 : 0);
    }
    if (!firstDone && total >= 0 && blocks.has(0)) {
      firstDone = true;
      scroller.setAttribute('data-ready', '1');
      // "painted": the first frame with rows is on screen (bench/app_bench.py), as the map's mark
      performance.mark('sitemapkit-pages-ready');
      requestAnimationFrame(() => { setTimeout(() => { performance.mark('sitemapkit-pages-painted'); }, 0); });
    }
  }
  function wanted() {
    const top = scroller.scrollTop, height = scroller.clientHeight;
    const first = Math.max(0, Math.floor(top / ROW_H) - 4);
    const last = Math.min(total, Math.ceil((top + height) / ROW_H) + 4);
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) {
      if (loading.size >= 2) { break; }
      fetchBlock(b);
    }
  }
  function schedule() { if (!frame) { frame = requestAnimationFrame(draw); } }

  function setCurrent(i) {
    if (i < 0 || i >= total) { return; }
    current = i;
    const top = i * ROW_H, view = scroller.clientHeight - ROW_H;
    if (top < scroller.scrollTop) { scroller.scrollTop = top; }
    else if (top + ROW_H > scroller.scrollTop + view) { scroller.scrollTop = top + ROW_H - view; }
    schedule();
  }
  async function openRow(i) {
    const r = rowAt(i);
    if (!r) { return; }
    clear(detail).appendChild(el('h2', { text: 'Page' }));
    detail.appendChild(el('p', { className: 'title', text: r.title || '(no title)' }));
    detail.appendChild(el('p', { className: 'url' }, el('a', { href: r.url, target: '_blank', rel: 'noopener noreferrer', text: r.url })));
    try {
      const w = await get(sitePath(id, '/why?url=' + encodeURIComponent(r.url)));
      detail.appendChild(facts([
        ['Decision', w.decision || ''], ['Why', w.detail || ''], ['Status', w.status === null ? '\u2013' : String(w.status)],
        ['Depth', w.depth === null ? '\u2013' : String(w.depth)], ['Found from', w.found_from || '\u2013'],
        ['Found how', w.found_how || '\u2013'], ['Links in', fmt(w.inlinks)], ['Canonical', w.canonical || '\u2013'],
        ['Lastmod', (w.lastmod || '\u2013') + (w.lastmod_source ? ' (' + w.lastmod_source + ')' : '')],
      ]));
      if (w.redirects && w.redirects.length) {
        detail.appendChild(el('h3', { text: 'Redirects' }));
        detail.appendChild(el('ol', null, w.redirects.map((x) => el('li', { text: x[1] + ' ' + x[0] }))));
      }
      if (w.notes && w.notes.length) { detail.appendChild(el('ul', null, w.notes.map((n) => el('li', { text: n })))); }
    } catch (e) { detail.appendChild(el('p', { className: 'error', text: e.message })); }
  }

  scroller.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', schedule);
  scroller.addEventListener('keydown', (e) => {
    const page = Math.max(1, Math.floor((scroller.clientHeight - ROW_H) / ROW_H) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) { setCurrent(Math.max(0, Math.min(total - 1, (current < 0 ? 0 : current + moves[e.key])))); }
    else if (e.key === 'Home') { setCurrent(0); }
    else if (e.key === 'End') { setCurrent(total - 1); }
    else if (e.key === 'Enter' && current >= 0) { openRow(current); }
    else { return; }
    e.preventDefault();
  });
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { q.q = search.value.trim(); restart(); }, 200);
  });
  search.addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(searchTimer); q.q = search.value.trim(); restart(); } });
  for (const s of [reason, status, section]) { s.addEventListener('change', () => { q[s.name] = s.value; restart(); }); }
  restart();
  return () => { stopped = true; generation++; window.removeEventListener('resize', schedule); cancelAnimationFrame(frame); clearTimeout(wantTimer); };
}
