/* sitemapkit app: the page shell and the router. Each view is a module with
 * mount(main, ctx) -> optional cleanup; the URL hash names the view:
 * #/sites, #/new, #/site/<id>/<tab> with tab in progress|map|pages|audit|sitemaps.
 * No build step: the browser loads these ES modules as they are (CSP script-src 'self'). */
import { clear, el } from './dom.js';
import * as sites from './views/sites.js';
import * as crawl from './views/crawl.js';
import * as progress from './views/progress.js';
import * as map from './views/map.js';
import * as pages from './views/pages.js';
import * as audit from './views/audit.js';
import * as sitemaps from './views/sitemaps.js';

const TABS = { progress, map, pages, audit, sitemaps };
const TAB_KEYS = ['progress', 'map', 'pages', 'audit', 'sitemaps'];
const main = document.getElementById('main');
const siteNav = document.getElementById('site-nav');
let cleanup = null;
let lastSite = null;

function route() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const params = new URLSearchParams(query || '');
  if (parts[0] === 'site' && parts[1]) {
    return { view: TABS[parts[2]] ? parts[2] : 'progress', site: parts[1], params };
  }
  return { view: parts[0] === 'new' ? 'new' : 'sites', site: null, params };
}

export function go(hash) {
  if (location.hash === hash) { show(); } else { location.hash = hash; }
}

export function siteHash(id, tab) {
  return '#/site/' + encodeURIComponent(id) + '/' + (tab || 'progress');
}

function markNav(r) {
  for (const a of document.querySelectorAll('[data-nav]')) {
    const on = !r.site && a.getAttribute('data-nav') === r.view;
    if (on) { a.setAttribute('aria-current', 'page'); } else { a.removeAttribute('aria-current'); }
  }
  const id = r.site || lastSite;
  siteNav.hidden = !id;
  if (!id) { return; }
  document.getElementById('site-name').textContent = id;
  for (const a of siteNav.querySelectorAll('[data-tab]')) {
    const tab = a.getAttribute('data-tab');
    a.setAttribute('href', siteHash(id, tab));
    if (r.site && tab === r.view) { a.setAttribute('aria-current', 'page'); } else { a.removeAttribute('aria-current'); }
  }
}

function show() {
  if (cleanup) { try { cleanup(); } catch (e) { console.error(e); } cleanup = null; }
  const r = route();
  if (r.site) { lastSite = r.site; }
  markNav(r);
  clear(main);
  main.setAttribute('data-view', r.view);
  const mod = r.site ? TABS[r.view] : r.view === 'new' ? crawl : sites;
  const title = r.site ? r.view[0].toUpperCase() + r.view.slice(1) + ' \u00b7 ' + r.site : r.view === 'new' ? 'New crawl' : 'Sites';
  document.title = title + ' \u2014 sitemapkit';
  try {
    cleanup = mod.mount(main, { site: r.site, params: r.params, go, siteHash }) || null;
  } catch (e) {
    main.appendChild(el('p', { className: 'error', role: 'alert', text: String(e.message || e) }));
  }
}

document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) { return; }
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName) && t.type !== 'button' && t.tagName !== 'BUTTON')) { return; }
  if (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName)) { return; }
  const r = route();
  if (e.key === '1') { go('#/sites'); }
  else if (e.key === '2') { go('#/new'); }
  else if (e.key >= '3' && e.key <= '7' && (r.site || lastSite)) { go(siteHash(r.site || lastSite, TAB_KEYS[+e.key - 3])); }
  else if (e.key === '/') {
    const box = main.querySelector('input[type=search]');
    if (box) { e.preventDefault(); box.focus(); }
    return;
  } else { return; }
  e.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', show);
if (!location.hash) { history.replaceState(null, '', '#/sites'); }
show();
document.documentElement.setAttribute('data-ready', '1');
