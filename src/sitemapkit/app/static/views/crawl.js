/* New crawl: the address and the main options of `sitemapkit crawl`; on submit the
 * server starts the crawl as a child process and the Progress view takes over. */
import { post } from '../api.js';
import { el } from '../dom.js';

function field(label, input, hint) {
  return el('label', { className: 'field' }, el('span', { className: 'lbl', text: label }), input,
    hint ? el('span', { className: 'hint', text: hint }) : null);
}

function num(name, placeholder, step) {
  return el('input', { type: 'number', name, min: '0', step: step || '1', placeholder, inputmode: 'numeric' });
}

export function mount(main, ctx) {
  const url = el('input', { type: 'url', name: 'url', required: true, placeholder: 'https://www.example.com/',
    autocomplete: 'url', 'aria-describedby': 'url-hint', size: '48' });
  const render = el('select', { name: 'render' },
    el('option', { value: '', text: 'server default' }),
    el('option', { value: 'never', text: 'never (HTML only)' }),
    el('option', { value: 'auto', text: 'auto (JavaScript pages)' }),
    el('option', { value: 'always', text: 'always' }));
  const robots = el('input', { type: 'checkbox', name: 'ignore_robots' });
  const subdomains = el('input', { type: 'checkbox', name: 'subdomains' });
  const msg = el('p', { className: 'error', role: 'alert' });
  const go = el('button', { type: 'submit', className: 'primary', text: 'Start crawl' });
  const form = el('form', { className: 'crawl-form', novalidate: true },
    field('Address', url),
    el('p', { id: 'url-hint', className: 'hint', text: 'The start page. The crawl stays on its host (and its subdomains if you ask).' }),
    el('fieldset', null, el('legend', { text: 'Limits' }),
      field('Max pages', num('max_pages', 'no limit')),
      field('Max depth', num('max_depth', 'no limit')),
      field('Max duration (s)', num('max_duration', 'no limit'))),
    el('fieldset', null, el('legend', { text: 'Politeness' }),
      field('Rate (requests/s)', num('rate', 'site default', '0.1')),
      field('Concurrency', num('concurrency', 'default')),
      el('label', { className: 'check' }, robots, ' Ignore robots.txt (only for your own site)')),
    el('fieldset', null, el('legend', { text: 'Scope and rendering' }),
      el('label', { className: 'check' }, subdomains, ' Include subdomains'),
      field('Render with Chromium', render)),
    el('div', { className: 'form-actions' }, go), msg);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.textContent = '';
    const address = url.value.trim();
    if (!/^https?:\/\/[^\s/]+/i.test(address)) {
      msg.textContent = 'Address: an http:// or https:// URL, such as https://www.example.com/';
      url.focus();
      return;
    }
    const body = { url: address };
    for (const name of ['max_pages', 'max_depth', 'concurrency']) {
      const v = form.elements[name].value;
      if (v !== '') { body[name] = parseInt(v, 10); }
    }
    for (const name of ['max_duration', 'rate']) {
      const v = form.elements[name].value;
      if (v !== '') { body[name] = parseFloat(v); }
    }
    if (robots.checked) { body.ignore_robots = true; }
    if (subdomains.checked) { body.subdomains = true; }
    if (render.value) { body.render = render.value; }
    go.disabled = true;
    try {
      const data = await post('/api/sites', body);
      ctx.go(ctx.siteHash(data.site.id, 'progress'));
    } catch (err) {
      msg.textContent = err.message;
      go.disabled = false;
    }
  });
  main.appendChild(el('h1', { text: 'New crawl' }));
  main.appendChild(form);
  url.focus();
}
