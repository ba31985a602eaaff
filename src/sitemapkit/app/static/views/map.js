/* Map: the very page `sitemapkit visualize` writes (visual/page.py and its assets, one
 * code base), served by the app for this site's store and shown in a frame. The frame
 * keeps the map's own strict CSP; the app only adds a reload for a crawl still running.
 * A big site's first visit shows its sections first (their exact counts, API.md /map):
 * the whole map is built meanwhile and takes the frame's place when it is ready, at once
 * if the sections were not touched or one was opened, else when "Show the whole map" is. */
import { sitePath } from '../api.js';
import { el } from '../dom.js';

export function mount(main, ctx) {
  const src = sitePath(ctx.site, '/map');
  const frame = el('iframe', { className: 'map-frame', title: 'Site map of ' + ctx.site, src });
  const reload = el('button', { type: 'button', text: 'Reload the map' });
  const note = el('span', { className: 'hint map-note', role: 'status', 'aria-live': 'polite' });
  const whole = el('button', { type: 'button', className: 'primary', text: 'Show the whole map', hidden: true });
  let stopped = false, waiting = false, ready = false, wanted = false;

  // the map page marks a hand on its sections itself (visual/assets/app.js): a listener added
  // here on the frame's load event would miss one that came before it on a slow machine
  function touched() {
    const doc = frame.contentDocument;
    return !!doc && doc.documentElement.getAttribute('data-touched') === '1';
  }

  function showWhole() {
    whole.hidden = true;
    note.textContent = '';
    frame.src = src + '?whole=1&t=' + Date.now();
  }
  function firstScreen() {
    if (waiting) { return; }
    waiting = true;
    note.textContent = 'Sections first: the whole map is being built\u2026';
    fetch(src + '?whole=1', { credentials: 'same-origin' })
      .then((r) => { if (!r.ok) { throw new Error('the whole map: ' + r.status + ' ' + r.statusText); } return r.text(); })
      .then(() => {
        if (stopped) { return; }
        ready = true;
        if (!touched() || wanted) { showWhole(); } else { note.textContent = 'The whole map is ready.'; whole.hidden = false; }
      })
      .catch((e) => { if (!stopped) { note.textContent = e.message; } });
  }
  frame.addEventListener('load', () => {
    const doc = frame.contentDocument;
    if (!doc || doc.documentElement.getAttribute('data-preview') !== '1') { waiting = false; ready = false; return; }
    // a hand on the sections keeps them until asked: the swap would lose what it did
    wanted = false;
    firstScreen();
  });
  function onMessage(e) {
    if (e.origin !== location.origin || e.source !== frame.contentWindow || !e.data || e.data.sitemapkit !== 'whole-map') { return; }
    wanted = true;
    if (ready) { showWhole(); }
  }
  window.addEventListener('message', onMessage);
  whole.addEventListener('click', showWhole);
  reload.addEventListener('click', () => { frame.src = src + '?t=' + Date.now(); });
  main.appendChild(el('div', { className: 'view-head compact' },
    el('h1', { text: 'Map' }),
    el('span', { className: 'hint', text: 'The same map as sitemapkit visualize: arrow keys move, Enter expands, search finds a page.' }),
    el('span', { className: 'spacer' }), note, whole, reload,
    el('a', { className: 'button', href: src + '?whole=1', download: ctx.site + '-site-map.html', text: 'Download HTML' })));
  main.appendChild(frame);
  return () => { stopped = true; window.removeEventListener('message', onMessage); };
}
