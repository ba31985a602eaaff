/* The site taking shape: pages as they arrive, counted into their folders (host, then
 * the first two path segments), drawn as a tree of bars. Redrawn at most once a frame
 * and only the top folders of each level, so a fast crawl never blocks the page. */
import { clear, el, fmt } from '../dom.js';

/* Rows drawn per level (folders beyond them are summed in a "more" line), and how many
 * of a level's folders open their own children: about 40 rows whatever the site, so a
 * redraw stays well under a frame's budget even on a busy machine. */
const TOP = [10, 10, 6];
const OPEN = [10, 4, 0];
/** Milliseconds between two redraws: a few a second is enough for a picture that grows. */
const EVERY = 400;

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
    this.drawn = -EVERY;
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
      const wait = Math.max(0, this.drawn + EVERY - performance.now());
      setTimeout(() => requestAnimationFrame(() => { this.pending = false; this.draw(); }), wait);
    }
  }

  draw() {
    this.drawn = performance.now();
    const ul = this.list(this.root, this.root.count, 0);
    clear(this.node);
    if (ul) { this.node.appendChild(ul); }
    this.node.setAttribute('data-pages', String(this.root.count));
  }

  list(parent, total, level) {
    if (!parent.kids.size || level >= TOP.length) { return null; }
    const kids = Array.from(parent.kids.values()).sort((a, b) => b.count - a.count);
    const top = TOP[level];
    const ul = el('ul', { role: level ? 'group' : null });
    kids.slice(0, top).forEach((k, rank) => {
      const pct = Math.max(1, Math.round((k.count / Math.max(1, total)) * 100));
      const bar = el('span', { className: 'bar' });
      bar.style.width = pct + '%';
      ul.appendChild(el('li', { role: 'treeitem' },
        el('div', { className: 'row' }, el('span', { className: 'name', text: k.name }),
          el('span', { className: 'track' }, bar), el('span', { className: 'n', text: fmt(k.count) })),
        rank < OPEN[level] ? this.list(k, k.count, level + 1) : null));
    });
    if (kids.length > top) {
      const rest = kids.slice(top).reduce((s, k) => s + k.count, 0);
      ul.appendChild(el('li', { className: 'more', text: '\u2026 ' + fmt(kids.length - top) + ' more folders, ' + fmt(rest) + ' pages' }));
    }
    return ul;
  }
}
