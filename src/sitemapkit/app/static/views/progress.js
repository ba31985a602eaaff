/* Progress: a crawl as it happens, from the server-sent events of API.md (at most a
 * few a second, however fast the crawl runs): pages/s, queue, reasons so far, errors,
 * and the site taking shape (a folder tree that grows as pages arrive). Stop and
 * Resume do what Ctrl-C and `crawl --resume` do. */
import { get, post, sitePath } from '../api.js';
import { clear, duration, el, facts, fmt } from '../dom.js';
import { GrowingTree } from './growing.js';

export function mount(main, ctx) {
  const id = ctx.site;
  const numbers = {};
  function stat(key, label) {
    numbers[key] = el('span', { className: 'n', text: '\u2013' });
    return el('div', { className: 'stat', 'data-stat': key }, numbers[key], el('span', { className: 'lbl', text: label }));
  }
  const state = el('span', { className: 'badge', text: 'connecting' });
  const message = el('p', { className: 'job-message', role: 'status', 'aria-live': 'polite' });
  const stopBtn = el('button', { type: 'button', className: 'danger', text: 'Stop', hidden: true });
  const resumeBtn = el('button', { type: 'button', className: 'primary', text: 'Resume', hidden: true });
  const againBtn = el('button', { type: 'button', text: 'Crawl again', hidden: true });
  const reasons = el('ul', { className: 'reasons' });
  const recent = el('ol', { className: 'recent', 'aria-label': 'Pages just fetched' });
  const tree = new GrowingTree();
  const config = el('div');
  main.appendChild(el('div', { className: 'view-head' },
    el('h1', null, 'Crawl of ', el('span', { className: 'site-id', text: id })), state,
    el('span', { className: 'spacer' }), stopBtn, resumeBtn, againBtn));
  main.appendChild(message);
  main.appendChild(el('div', { className: 'stats' },
    stat('fetched', 'pages fetched this run'), stat('rate', 'pages / s'), stat('queued', 'in the queue'),
    stat('in_sitemap', 'in the sitemap'), stat('errors', 'errors'), stat('elapsed', 'elapsed')));
  main.appendChild(el('div', { className: 'columns' },
    el('section', { className: 'panel grow', 'aria-label': 'The site taking shape' },
      el('h2', { text: 'The site taking shape' }), tree.node,
      el('p', { className: 'hint' }, 'Folders by pages found so far. ',
        el('a', { href: ctx.siteHash(id, 'map'), text: 'Open the full map' }))),
    el('div', { className: 'side' },
      el('section', { className: 'panel' }, el('h2', { text: 'Reasons so far' }), reasons),
      el('section', { className: 'panel' }, el('h2', { text: 'Just fetched' }), recent),
      el('section', { className: 'panel' }, el('h2', { text: 'Settings' }), config))));

  function showState(s, job) {
    const running = s === 'running' || s === 'stopping';
    state.textContent = s === 'running' ? 'crawling' : s;
    state.className = 'badge state-' + s;
    stopBtn.hidden = s !== 'running';
    if (job && job.message && !running) { message.textContent = job.message; }
    else if (s === 'stopping') { message.textContent = 'Stopping: the crawl saves what it has, then it can be resumed.'; }
    else if (running) { message.textContent = ''; }
  }
  function showSite(site) {
    showState(site.state, site.job);
    resumeBtn.hidden = !site.can_resume || site.state !== 'idle';
    againBtn.hidden = site.state !== 'idle';
    // "fetched" is the current run's (progress events); the summary's pages are every run's
    setNumbers({ in_sitemap: site.in_sitemap, queued: site.queued, errors: site.errors });
    if (site.reasons) { showReasons(site.reasons); }
    if (site.config) {
      const pairs = Object.entries(site.config).filter(([, v]) => v !== null && v !== '' && !(Array.isArray(v) && !v.length))
        .slice(0, 12).map(([k, v]) => [k.replace(/_/g, ' '), typeof v === 'object' ? JSON.stringify(v) : String(v)]);
      clear(config).appendChild(facts(pairs));
    }
  }
  function setNumbers(p) {
    for (const key of ['fetched', 'in_sitemap', 'queued', 'errors']) {
      if (p[key] !== undefined && p[key] !== null) { numbers[key].textContent = fmt(p[key]); }
    }
    if (p.rate !== undefined) { numbers.rate.textContent = p.rate === null ? '\u2013' : p.rate.toFixed(1); }
    if (p.elapsed !== undefined) { numbers.elapsed.textContent = duration(p.elapsed); }
  }
  let shownReasons = null;
  function showReasons(r) {
    const key = JSON.stringify(r);
    if (key === shownReasons) { return; }  // 4 events a second, the same reasons mostly
    shownReasons = key;
    clear(reasons);
    const list = Object.entries(r).sort((a, b) => b[1] - a[1]);
    if (!list.length) { reasons.appendChild(el('li', { className: 'muted', text: 'none yet' })); }
    for (const [k, n] of list) {
      reasons.appendChild(el('li', null, el('a', { href: ctx.siteHash(id, 'pages') + '?reason=' + encodeURIComponent(k), text: k }),
        el('span', { className: 'n', text: fmt(n) })));
    }
  }
  function addPages(list) {
    tree.add(list);
    const take = list.slice(-12).reverse();
    for (const p of take) {
      const li = el('li', { className: p.indexable ? '' : 'excluded' },
        el('span', { className: 'status s' + String(p.status || 0)[0], text: p.status === null ? '\u2013' : String(p.status) }),
        el('span', { className: 'title', text: p.title || '(no title)' }),
        el('span', { className: 'url', text: p.url }));
      recent.insertBefore(li, recent.firstChild);
    }
    while (recent.childNodes.length > 12) { recent.removeChild(recent.lastChild); }
  }

  // what was fetched before this page opened (events carry only what comes after)
  let seeding = true, seeded = false;
  async function seed() {
    // each read makes the server load the store again while a crawl writes it: a few
    // thousand pages draw the shape; the live events add the rest
    const SEED_MAX = 5000, STEP = 1000;
    try {
      for (let offset = 0; seeding && offset < SEED_MAX; offset += STEP) {
        const d = await get(sitePath(id, '/pages?limit=' + STEP + '&offset=' + offset));
        tree.add(d.rows);
        if (d.rows.length < STEP || !d.rows.some((r) => r.status !== null)) { break; }
      }
    } catch (e) { /* no store yet: the events fill the tree */ }
  }
  async function refresh() {
    try { showSite(await get(sitePath(id))); }
    catch (e) { message.textContent = e.message; message.className = 'error'; }
  }
  async function act(what) {
    message.className = 'job-message';
    try {
      const site = await post(sitePath(id, '/' + what), {});
      showSite(site.site || site);
      if (what !== 'stop') { tree.reset(); clear(recent); }
    } catch (e) { message.textContent = e.message; message.className = 'error'; }
  }
  stopBtn.addEventListener('click', () => act('stop'));
  resumeBtn.addEventListener('click', () => act('resume'));
  againBtn.addEventListener('click', () => act('crawl'));

  // EventSource retries a dropped stream by itself, but not one the server refused
  // (restarted, site not there yet): that one is opened again after a pause
  let source = null, retry = 0;
  const conn = document.getElementById('conn');
  function listen() {
    source = new EventSource(sitePath(id, '/events'));
    source.addEventListener('open', () => { conn.textContent = ''; });
    source.addEventListener('error', () => {
      conn.textContent = 'reconnecting\u2026';
      if (source.readyState === EventSource.CLOSED) { retry = setTimeout(listen, 2000); }
    });
    source.addEventListener('progress', (e) => { pending.progress = JSON.parse(e.data); later(); });
    source.addEventListener('pages', (e) => {
      pending.pages.push(...(JSON.parse(e.data).pages || []));
      if (pending.pages.length > 5000) { flush(); } else { later(); }
    });
    source.addEventListener('state', () => { refresh(); });
  }
  // the events' DOM work is done once a frame, not once an event: a busy machine turns
  // each small task into a long one, and several in a frame into a frame that stalls
  const pending = { progress: null, pages: [] };
  let frameReq = 0;
  function later() { if (!frameReq) { frameReq = requestAnimationFrame(flush); } }
  function flush() {
    cancelAnimationFrame(frameReq);
    frameReq = 0;
    const p = pending.progress, list = pending.pages;
    pending.progress = null;
    pending.pages = [];
    if (p) { onProgress(p); }
    if (list.length) { addPages(list); }
  }
  function onProgress(p) {
    showState(p.state);
    setNumbers(p);
    if (p.reasons) { showReasons(p.reasons); }
    conn.textContent = p.problem ? 'store: ' + p.problem : '';
    main.setAttribute('data-fetched', String(p.fetched || 0));
    if (p.fetched > 0 && !seeded) { seeded = true; seed(); }
    if (p.state === 'running') { resumeBtn.hidden = true; againBtn.hidden = true; }
  }
  listen();
  refresh();
  return () => { seeding = false; clearTimeout(retry); cancelAnimationFrame(frameReq); source.close(); conn.textContent = ''; };
}
