/* Audit: `sitemapkit audit` of this site's sitemaps against its crawl, findings by rule
 * code (with the code's meaning from the rule book), each code's findings with evidence. */
import { get, post, sitePath } from '../api.js';
import { clear, el, fmt } from '../dom.js';

export function mount(main, ctx) {
  const id = ctx.site;
  const status = el('p', { className: 'job-message', role: 'status', 'aria-live': 'polite' });
  const runBtn = el('button', { type: 'button', className: 'primary', text: 'Run audit' });
  const codes = el('div');
  const detail = el('section', { className: 'panel findings', 'aria-live': 'polite' });
  main.appendChild(el('div', { className: 'view-head' }, el('h1', { text: 'Audit' }),
    el('span', { className: 'spacer' }),
    el('a', { className: 'button', href: sitePath(id, '/audit.html'), target: '_blank', rel: 'noopener', text: 'Full report' }), runBtn));
  main.appendChild(status);
  main.appendChild(el('div', { className: 'columns' }, el('div', { className: 'panel' }, codes), detail));
  let timer = null;
  let stopped = false;

  async function showCode(code) {
    clear(detail).appendChild(el('h2', { text: code + ': loading\u2026' }));
    try {
      const data = await get(sitePath(id, '/audit?code=' + encodeURIComponent(code) + '&limit=200'));
      const meta = data.codes.find((c) => c.code === code) || { meaning: '', count: 0 };
      clear(detail).appendChild(el('h2', { text: code }));
      if (meta.meaning && meta.meaning !== code) { detail.appendChild(el('p', { text: meta.meaning })); }
      const rows = (data.findings || []).map((f) => el('tr', null,
        el('td', { className: 'url', text: f.url || '' }),
        el('td', { text: f.sitemap ? f.sitemap + (f.line ? ':' + f.line : '') : '' }),
        el('td', { className: 'evidence', text: f.evidence || '' })));
      detail.appendChild(el('table', { className: 'grid' },
        el('thead', null, el('tr', null, ['URL', 'Where', 'Evidence'].map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', null, rows)));
      if (meta.count > rows.length) { detail.appendChild(el('p', { className: 'hint', text: 'First ' + fmt(rows.length) + ' of ' + fmt(meta.count) + ': the full report lists every one.' })); }
    } catch (e) { clear(detail).appendChild(el('p', { className: 'error', text: e.message })); }
  }

  function showCodes(data) {
    clear(codes);
    if (!data.ran) {
      codes.appendChild(el('p', { text: 'No audit yet. The audit reads the site\u2019s sitemaps and compares them with the crawl.' }));
      return;
    }
    if (!data.codes.length) { codes.appendChild(el('p', { className: 'ok', text: 'No findings: the sitemaps and the crawl agree.' })); return; }
    const rows = data.codes.map((c) => {
      const btn = el('button', { type: 'button', className: 'link', 'data-code': c.code, text: c.code, onclick: () => showCode(c.code) });
      return el('tr', null, el('td', null, btn),
        el('td', null, el('span', { className: 'badge sev-' + c.severity, text: c.severity })),
        el('td', { className: 'num', text: fmt(c.count) }), el('td', { className: 'meaning', text: c.meaning === c.code ? '' : c.meaning }));
    });
    codes.appendChild(el('table', { className: 'grid codes' },
      el('thead', null, el('tr', null, ['Code', 'Severity', 'Findings', 'Meaning'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', null, rows)));
  }

  async function load() {
    try {
      const data = await get(sitePath(id, '/audit'));
      if (stopped) { return; }
      const running = data.job && data.job.kind === 'audit' && !data.job.ended_at;
      runBtn.disabled = !!running;
      runBtn.textContent = data.ran ? 'Run again' : 'Run audit';
      status.textContent = running ? 'The audit is running\u2026' : data.job && data.job.message ? data.job.message : '';
      showCodes(data);
      if (running) { timer = setTimeout(load, 1000); }
    } catch (e) { status.textContent = e.message; status.className = 'error'; }
  }
  runBtn.addEventListener('click', async () => {
    runBtn.disabled = true;
    try { await post(sitePath(id, '/audit'), {}); status.textContent = 'The audit is running\u2026'; timer = setTimeout(load, 800); }
    catch (e) { status.textContent = e.message; status.className = 'error'; runBtn.disabled = false; }
  });
  load();
  return () => { stopped = true; clearTimeout(timer); };
}
