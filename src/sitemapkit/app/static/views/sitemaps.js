/* Sitemaps: the set the crawl wrote, its validation, the robots.txt line to add,
 * the set as a zip, and "publish to a folder" (under the server's publish root). */
import { get, post, sitePath } from '../api.js';
import { bytes, clear, el, fmt } from '../dom.js';

export function mount(main, ctx) {
  const id = ctx.site;
  const body = el('div');
  main.appendChild(el('div', { className: 'view-head' }, el('h1', { text: 'Sitemaps' }), el('span', { className: 'spacer' }),
    el('a', { className: 'button primary', id: 'zip', href: sitePath(id, '/sitemaps.zip'), download: id + '-sitemaps.zip', text: 'Download zip' })));
  main.appendChild(body);

  function validation(v) {
    const head = v.ok
      ? el('p', { className: 'ok', text: 'Valid: every file passes `sitemapkit validate` (' + fmt(v.warnings) + ' warnings).' })
      : el('p', { className: 'error', text: fmt(v.errors) + ' errors, ' + fmt(v.warnings) + ' warnings.' });
    const list = el('ul', { className: 'findings-list' }, (v.findings || []).slice(0, 200).map((f) =>
      el('li', null, el('span', { className: 'badge sev-' + f.severity, text: f.code }), ' ',
        el('span', { text: f.file + (f.line ? ':' + f.line : '') + ': ' + f.message }))));
    return el('section', { className: 'panel' }, el('h2', { text: 'Validation' }), head, list);
  }

  function publishForm() {
    const folder = el('input', { type: 'text', name: 'folder', placeholder: 'e.g. www', size: '30', 'aria-label': 'Folder under the publish root' });
    const out = el('p', { role: 'status', 'aria-live': 'polite' });
    const form = el('form', { className: 'inline' }, el('label', null, 'Folder ', folder), ' ',
      el('button', { type: 'submit', text: 'Publish' }), out);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      out.className = '';
      try {
        const r = await post(sitePath(id, '/publish'), { folder: folder.value.trim() });
        out.textContent = 'Published ' + r.files.length + ' file' + (r.files.length === 1 ? '' : 's') + ' to ' + r.folder;
      } catch (err) { out.className = 'error'; out.textContent = err.message; }
    });
    return el('section', { className: 'panel' }, el('h2', { text: 'Publish to a folder' }),
      el('p', { className: 'hint', text: 'Copies the set into a folder under the publish root (files appear whole: written under a temporary name, then renamed).' }), form);
  }

  async function load() {
    try {
      const [d, info] = await Promise.all([get(sitePath(id, '/sitemaps')), get('/api/info')]);
      clear(body);
      const counted = d.files.some((f) => typeof f.urls === 'number');
      const rows = d.files.map((f) => el('tr', null, el('td', null, el('code', { text: f.name })),
        counted ? el('td', { className: 'num', text: fmt(f.urls) }) : null, el('td', { className: 'num', text: bytes(f.bytes) })));
      const heads = [el('th', { scope: 'col', text: 'File' }), counted ? el('th', { scope: 'col', className: 'num', text: 'URLs' }) : null,
        el('th', { scope: 'col', className: 'num', text: 'Size' })];
      body.appendChild(el('section', { className: 'panel' }, el('h2', { text: 'Files' }),
        el('table', { className: 'grid files' }, el('thead', null, el('tr', null, heads)), el('tbody', null, rows))));
      body.appendChild(validation(d.validation));
      const line = el('code', { className: 'robots', text: d.robots_line || '' });
      const copy = el('button', { type: 'button', text: 'Copy' });
      copy.addEventListener('click', async () => {
        try { await navigator.clipboard.writeText(d.robots_line); copy.textContent = 'Copied'; }
        catch (e) { const r = document.createRange(); r.selectNodeContents(line); getSelection().removeAllRanges(); getSelection().addRange(r); }
      });
      body.appendChild(el('section', { className: 'panel' }, el('h2', { text: 'robots.txt' }),
        el('p', { text: 'Add this line to the site\u2019s robots.txt so search engines find the set:' }),
        el('div', { className: 'robots-line' }, line, copy)));
      const pub = publishForm();
      pub.appendChild(el('p', { className: 'hint', text: 'Publish root: ' + info.publish_root }));
      body.appendChild(pub);
    } catch (e) {
      clear(body).appendChild(el('p', { className: e.status === 409 ? 'hint' : 'error', text: e.status === 409 ? 'No sitemap set yet: it is written when a crawl ends (or is stopped).' : e.message }));
    }
  }
  load();
}
