// The script of the results view's page (see resultsHtml.ts for the page, resultsPanel.ts for the
// other end of its messages). A result arrives as one message: the header, and one card per file
// as HTML. Only the cards in view (and a screen above and below) are in the document, placed in a
// list as tall as all of them; a card's height is guessed until it has been drawn once. A file's
// content is asked for when its card is opened. The page's long tasks (PerformanceObserver
// 'longtask') are counted and reported with each paint, so the tests can say the page stayed
// responsive. Kept as text: it runs in the webview, not in Node.

export const PAGE_SCRIPT = String.raw`(function () {
  const vscode = acquireVsCodeApi();
  const list = document.getElementById('list');
  const header = document.querySelector('header');
  const filterBox = document.getElementById('filter');
  const backButton = document.getElementById('back');
  const LINE = 18;
  let model = null;
  let order = [];
  let tops = [0];
  let heights = [];
  let opened = new Set();
  let closedGuess = 70;
  let shownAt = 0;
  const contents = new Map();
  const asked = new Set();
  const rendered = new Map();
  const longTasks = [];
  let supported = false;
  try {
    supported = (PerformanceObserver.supportedEntryTypes || []).indexOf('longtask') >= 0;
    new PerformanceObserver(function (entries) {
      for (const e of entries.getEntries()) { longTasks.push({ start: e.startTime, ms: e.duration }); }
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { supported = false; }

  function escapeText(t) {
    const d = document.createElement('span');
    d.textContent = t;
    return d.innerHTML;
  }
  function guess(i) {
    if (!opened.has(i)) { return closedGuess; }
    return closedGuess + 12 + Math.min(model.lines[i] || 0, 100000) * LINE + (model.pictures[i] || 0) * 320;
  }
  function heightOf(i) { return heights[i] !== undefined ? heights[i] : guess(i); }
  function layout() {
    tops = new Array(order.length + 1);
    let y = 0;
    for (let p = 0; p < order.length; p++) { tops[p] = y; y += heightOf(order[p]); }
    tops[order.length] = y;
    list.style.height = y + 'px';
  }
  function positionAt(y) {
    let lo = 0, hi = order.length - 1, best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (tops[mid] <= y) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return best;
  }
  function listTop() { return list.getBoundingClientRect().top + window.scrollY; }
  function fill(section, i) {
    const box = section.querySelector('.content');
    const toggle = section.querySelector('button.toggle');
    if (toggle) { toggle.setAttribute('aria-expanded', opened.has(i) ? 'true' : 'false'); }
    if (!box) { return; }
    if (!opened.has(i)) { box.hidden = true; box.innerHTML = ''; return; }
    box.hidden = false;
    if (contents.has(i)) { box.innerHTML = contents.get(i); return; }
    box.innerHTML = '<p class="empty">Loading...</p>';
    if (!asked.has(i)) { asked.add(i); vscode.postMessage({ action: 'content', file: i, seq: model.seq }); }
  }
  function make(i) {
    const holder = document.createElement('div');
    holder.innerHTML = model.cards[i] || '<section class="file pending" data-file="' + i + '"><h3 class="meta">' + escapeText(model.paths[i]) + '</h3></section>';
    const section = holder.firstElementChild;
    section.setAttribute('role', 'listitem');
    fill(section, i);
    return section;
  }
  function draw() {
    if (!model) { return; }
    const top = window.scrollY - listTop();
    const screen = window.innerHeight;
    const from = order.length ? positionAt(Math.max(0, top - screen)) : 0;
    let to = from;
    while (to < order.length && tops[to] < top + 2 * screen) { to++; }
    const keep = new Set();
    for (let p = from; p < to; p++) {
      const i = order[p];
      keep.add(i);
      let el = rendered.get(i);
      if (!el) { el = make(i); rendered.set(i, el); list.appendChild(el); }
      el.style.top = tops[p] + 'px';
    }
    for (const [i, el] of rendered) {
      if (!keep.has(i)) { el.remove(); rendered.delete(i); }
    }
    let changed = false;
    let above = 0;
    for (let p = from; p < to; p++) {
      const i = order[p];
      const h = rendered.get(i).offsetHeight;
      if (h !== heightOf(i) || heights[i] === undefined) {
        if (tops[p] + heightOf(i) <= top) { above += h - heightOf(i); }
        if (heights[i] === undefined && !opened.has(i) && !measuredClosed) { closedGuess = h; measuredClosed = true; }
        heights[i] = h;
        changed = true;
      }
    }
    if (changed) {
      layout();
      for (let p = from; p < to; p++) { rendered.get(order[p]).style.top = tops[p] + 'px'; }
      if (above !== 0) { window.scrollBy(0, above); }
    }
  }
  let measuredClosed = false;
  let drawPending = false;
  function schedule() {
    if (drawPending) { return; }
    drawPending = true;
    requestAnimationFrame(function () { drawPending = false; draw(); });
  }
  function applyFilter(text) {
    const t = text.trim().toLowerCase();
    order = [];
    for (let i = 0; i < model.count; i++) {
      if (!t || model.paths[i].toLowerCase().indexOf(t) >= 0) { order.push(i); }
    }
    for (const el of rendered.values()) { el.remove(); }
    rendered.clear();
    layout();
    draw();
  }
  function since(t0) {
    return longTasks.filter(function (x) { return x.start + x.ms >= t0; }).map(function (x) { return Math.round(x.ms); });
  }
  function startsSince(t0) {
    return longTasks.filter(function (x) { return x.start + x.ms >= t0; }).map(function (x) { return Math.round(x.start - t0); });
  }
  function show(m) {
    const t0 = performance.now();
    shownAt = t0;
    model = m;
    heights = [];
    measuredClosed = false;
    opened = new Set(m.open);
    contents.clear();
    asked.clear();
    for (const el of rendered.values()) { el.remove(); }
    rendered.clear();
    document.getElementById('title').textContent = m.title;
    document.getElementById('totals').textContent = m.totals;
    document.getElementById('caps').innerHTML = m.headerHtml;
    backButton.hidden = !m.back;
    backButton.textContent = m.back ? 'Back to ' + m.back : 'Back';
    filterBox.value = '';
    window.scrollTo(0, 0);
    applyFilter('');
    vscode.setState({ seq: m.seq });
    requestAnimationFrame(function () {
      setTimeout(function () {
        vscode.postMessage({ action: 'painted', seq: m.seq, at: Date.now(), ms: performance.now() - t0, cards: rendered.size, supported: supported, longTasks: since(t0) });
      }, 0);
    });
  }
  window.addEventListener('message', function (event) {
    const msg = event.data;
    if (!msg || typeof msg.type !== 'string') { return; }
    if (msg.type === 'show') { show(msg.model); return; }
    if (!model || msg.seq !== model.seq) { return; }
    if (msg.type === 'cards') {
      for (let k = 0; k < msg.cards.length; k++) { model.cards[msg.from + k] = msg.cards[k]; }
      let again = false;
      for (const [i, el] of rendered) {
        if (i >= msg.from && i < msg.from + msg.cards.length && el.classList.contains('pending')) { el.remove(); rendered.delete(i); again = true; }
      }
      if (again) { draw(); }
      return;
    }
    if (msg.type === 'content') {
      contents.set(msg.file, msg.html);
      const el = rendered.get(msg.file);
      if (el) { fill(el, msg.file); draw(); }
    } else if (msg.type === 'stats') {
      vscode.postMessage({ action: 'stats', seq: model.seq, id: msg.id, supported: supported, longTasks: since(shownAt), longTaskStarts: startsSince(shownAt), cards: rendered.size, files: model.count });
    } else if (msg.type === 'scrollTo') {
      const t0 = performance.now();
      const p = order.indexOf(msg.file);
      if (p >= 0) {
        window.scrollTo(0, listTop() + tops[p] - header.offsetHeight);
        draw();
      }
      requestAnimationFrame(function () {
        setTimeout(function () {
          const el = rendered.get(msg.file);
          vscode.postMessage({ action: 'stats', seq: model.seq, id: msg.id, supported: supported, longTasks: since(t0), cards: rendered.size, shows: !!el && el.textContent.indexOf(model.paths[msg.file]) >= 0, ms: performance.now() - t0 });
        }, 0);
      });
    }
  });
  window.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', function () { heights = []; measuredClosed = false; if (model) { layout(); } schedule(); });
  let filterTimer;
  filterBox.addEventListener('input', function () {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(function () { window.scrollTo(0, 0); applyFilter(filterBox.value); }, 120);
  });
  document.addEventListener('click', function (event) {
    const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!target) { return; }
    const d = target.dataset;
    if (d.action === 'toggle') {
      const i = Number(d.file);
      if (opened.has(i)) { opened.delete(i); } else { opened.add(i); }
      heights[i] = undefined;
      const el = rendered.get(i);
      if (el) { fill(el, i); }
      layout();
      draw();
      return;
    }
    vscode.postMessage({
      action: d.action,
      seq: model ? model.seq : undefined,
      file: d.file === undefined ? undefined : Number(d.file),
      offset: d.offset === undefined ? undefined : Number(d.offset),
      column: d.column === undefined ? undefined : Number(d.column),
      limit: d.limit === undefined ? undefined : Number(d.limit),
      pages: d.pages,
      cap: d.cap === undefined ? undefined : Number(d.cap),
      setting: d.setting,
    });
  });
  vscode.postMessage({ action: 'ready' });
})();`;
