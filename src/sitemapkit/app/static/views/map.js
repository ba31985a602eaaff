/* Map: the very page `sitemapkit visualize` writes (visual/page.py and its assets, one
 * code base), served by the app for this site's store and shown in a frame. The frame
 * keeps the map's own strict CSP; the app only adds a reload for a crawl still running. */
import { sitePath } from '../api.js';
import { el } from '../dom.js';

export function mount(main, ctx) {
  const frame = el('iframe', { className: 'map-frame', title: 'Site map of ' + ctx.site, src: sitePath(ctx.site, '/map') });
  const reload = el('button', { type: 'button', text: 'Reload the map' });
  reload.addEventListener('click', () => { frame.src = sitePath(ctx.site, '/map') + '?t=' + Date.now(); });
  main.appendChild(el('div', { className: 'view-head compact' },
    el('h1', { text: 'Map' }),
    el('span', { className: 'hint', text: 'The same map as sitemapkit visualize: arrow keys move, Enter expands, search finds a page.' }),
    el('span', { className: 'spacer' }), reload,
    el('a', { className: 'button', href: sitePath(ctx.site, '/map'), download: ctx.site + '-site-map.html', text: 'Download HTML' })));
  main.appendChild(frame);
}
