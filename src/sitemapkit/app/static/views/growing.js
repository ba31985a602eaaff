/* The site taking shape: pages as they arrive, counted into their folders (host, then
 * the first two path segments), drawn as a tree of bars. Redrawn at most once a frame
 * and only the top folders of each level, so a fast crawl never blocks the page. */
import { clear, el, fmt } from '../dom.js';

const TOP = 10;

function parts(url) {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)/i.exec(url);
  if (!m) { return [url]; }
  const segs = m[2].split('/').filter(Boolean);
  const dirs = segs.slice(0, Math.min(2, Math.max(0, segs.length - 1)));
  return [m[1].replace(/^[a-z]+:\/\//i, '')].concat(dirs.map((s) => s + '/'));
}

export class GrowingTree {
  constructor() {
    this.node = el('div', { className: 'growing', role: 'tree', 'aria-label': 'Folders by pages found' });
    this.reset();
  }

  reset() {
    this.root = { name: '', count: 0, kids: new Map() };
    this.seen = new Set();
    this.pending = false;
    clear(this.node);
  }

  add(pages) {
    for (const p of pages) {
      // the same page can come from the first read and from the live events
      if (p.status === null || p.status === undefined || this.seen.has(p.url)) { continue; }
      this.seen.add(p.url);
      let n = this.root;
      n.count++;
      for (const name of parts(p.url)) {
        let k = n.kids.get(name);
        if (!k) { k = { name, count: 0, kids: new Map() }; n.kids.set(name, k); }
        k.count++;
        n = k;
      }
    }
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }
  }

  draw() {
    const ul = this.list(this.root, this.root.count, 0);
    clear(this.node);
    if (ul) { this.node.appendChild(ul); }
    this.node.setAttribute('data-pages', String(this.root.count));
  }

  list(parent, total, level) {
    if (!parent.kids.size || level > 2) { return null; }
    const kids = Array.from(parent.kids.values()).sort((a, b) => b.count - a.count);
    const ul = el('ul', { role: level ? 'group' : null });
    for (const k of kids.slice(0, TOP)) {
      const pct = Math.max(1, Math.round((k.count / Math.max(1, total)) * 100));
      const bar = el('span', { className: 'bar' });
      bar.style.width = pct + '%';
      ul.appendChild(el('li', { role: 'treeitem' },
        el('div', { className: 'row' }, el('span', { className: 'name', text: k.name }),
          el('span', { className: 'track' }, bar), el('span', { className: 'n', text: fmt(k.count) })),
        this.list(k, k.count, level + 1)));
    }
    if (kids.length > TOP) {
      const rest = kids.slice(TOP).reduce((s, k) => s + k.count, 0);
      ul.appendChild(el('li', { className: 'more', text: '\u2026 ' + fmt(kids.length - TOP) + ' more folders, ' + fmt(rest) + ' pages' }));
    }
    return ul;
  }
}
