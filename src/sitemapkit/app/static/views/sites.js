/* Sites: every site crawled in this workspace, newest activity first, with the last
 * run, pages, sitemap size and audit status; refreshed while something runs. */
import { get, post, sitePath } from '../api.js';
import { bytes, clear, el, fmt, when } from '../dom.js';

function stateBadge(s) {
  const label = s.state === 'running' ? 'crawling' : s.state === 'busy' ? 'busy (CLI)' : s.state;
  return el('span', { className: 'badge state-' + s.state, text: label });
}

function auditCell(a) {
  if (!a) { return el('span', { className: 'muted', text: 'not run' }); }
  if (!a.findings) { return el('span', { className: 'badge ok', text: 'clean' }); }
  return el('span', { className: 'badge ' + (a.errors ? 'bad' : 'warn'),
    text: fmt(a.findings) + ' finding' + (a.findings === 1 ? '' : 's') + ' (' + fmt(a.errors) + ' errors)' });
}

export function mount(main, ctx) {
  const status = el('p', { className: 'hint', role: 'status' });
  const body = el('div');
  main.appendChild(el('div', { className: 'view-head' },
    el('h1', { text: 'Sites' }),
    el('a', { className: 'button primary', href: '#/new', text: 'New crawl' })));
  main.appendChild(status);
  main.appendChild(body);
  let timer = null;
  let stopped = false;

  async function act(what, s) {
    try {
      await post(sitePath(s.id, '/' + what), {});
      ctx.go(ctx.siteHash(s.id, 'progress'));
    } catch (e) { status.textContent = e.message; status.className = 'error'; }
  }

  function table(list) {
    const rows = list.map((s) => el('tr', null,
      el('td', null,
        el('a', { href: ctx.siteHash(s.id, s.state === 'running' ? 'progress' : 'map'), className: 'site-link', text: s.id }),
        el('div', { className: 'url', text: s.start_url || '' })),
      el('td', null, stateBadge(s), s.job && s.job.message ? el('div', { className: 'muted small', text: s.job.message }) : null),
      el('td', { text: s.last_run ? when(s.last_run.started_at) : '\u2013' }),
      el('td', { className: 'num', text: fmt(s.pages) }),
      el('td', { className: 'num', text: fmt(s.in_sitemap) }),
      el('td', { className: 'num', text: s.sitemap ? fmt(s.sitemap.urls) + ' URLs \u00b7 ' + bytes(s.sitemap.bytes) : '\u2013' }),
      el('td', null, auditCell(s.audit)),
      el('td', { className: 'actions' },
        el('a', { className: 'button', href: ctx.siteHash(s.id, 'pages'), text: 'Pages' }),
        s.can_resume ? el('button', { type: 'button', text: 'Resume', onclick: () => act('resume', s) }) : null,
        s.state === 'idle' ? el('button', { type: 'button', text: 'Crawl again', onclick: () => act('crawl', s) }) : null)));
    return el('table', { className: 'grid sites' },
      el('thead', null, el('tr', null, ['Site', 'State', 'Last run', 'Pages', 'In sitemap', 'Sitemap', 'Audit', ''].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', null, rows));
  }

  async function load() {
    try {
      const data = await get('/api/sites');
      if (stopped) { return; }
      clear(body);
      if (!data.sites.length) {
        body.appendChild(el('div', { className: 'empty' },
          el('p', { text: 'No site crawled in this workspace yet.' }),
          el('a', { className: 'button primary', href: '#/new', text: 'Crawl a site' })));
      } else {
        body.appendChild(table(data.sites));
      }
      const busy = data.sites.some((s) => s.state !== 'idle');
      timer = setTimeout(load, busy ? 1500 : 5000);
    } catch (e) {
      status.textContent = e.message; status.className = 'error';
      timer = setTimeout(load, 5000);
    }
  }
  load();
  return () => { stopped = true; clearTimeout(timer); };
}
