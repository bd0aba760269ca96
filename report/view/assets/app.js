// LIMBO episode viewer: the list with filters and live rates, and each
// episode's timeline. Plain JavaScript, no network: the data comes from
// data/list.js and data/chunk-*.js script files, so the site opens from
// file:// as well as over HTTP. State lives in the URL hash.
(function () {
  'use strict';
  var D = window.LIMBO_DATA;
  var $ = function (id) { return document.getElementById(id); };
  if (!D) {
    $('loading').textContent = 'Could not load data/list.js: open index.html from the folder limbo-analyze view wrote.';
    return;
  }
  // The ids are front coded (site.go): rebuild them.
  D.ids = new Array(D.id_suffix.length);
  for (var q = 0, prev = ''; q < D.id_suffix.length; q++) prev = D.ids[q] = prev.slice(0, D.id_prefix[q]) + D.id_suffix[q];
  var N = D.ids.length;
  var PAGE = 100;
  var dim = {}, num = {};
  D.dims.forEach(function (d) { dim[d.name] = d; });
  D.nums.forEach(function (n) { num[n.name] = n.values; });
  var FLAG = { duplicated: 1, eos: 2, overclaim: 4, task_success: 8, fault_fired: 16, reported_success: 32, uncertainty_listed: 64, reversible: 128 };
  var FILTERS = ['file', 'experiment', 'model', 'harness', 'condition', 'contract', 'cue', 'fault_mode', 'template', 'write_class', 'recovery']
    .filter(function (n) { return dim[n]; });
  var LABEL = { file: 'Ledger', experiment: 'Experiment', model: 'Model', harness: 'Harness', condition: 'Condition', contract: 'Contract', cue: 'Cue',
    fault_mode: 'Fault mode', template: 'Template', write_class: 'Write class', recovery: 'Recovery', outcome: 'Outcome', fired: 'Fault fired' };
  var OUTCOMES = [['', 'any'], ['duplicated', 'duplicated'], ['!duplicated', 'not duplicated'], ['eos', 'exactly once (EOS)'], ['!eos', 'not EOS'],
    ['overclaim', 'overclaim'], ['!overclaim', 'no overclaim'], ['!task_success', 'task failed'], ['recovered', 'recovery other than none']];
  var FIRED = [['', 'any'], ['1', 'fired'], ['0', 'not fired']];
  var weights = num.weight;

  // ---- helpers ----
  // vis writes the control characters of text from the ledger (C0, DEL,
  // C1) as visible escapes (\x1b, \n), as the command line's tables do.
  function vis(s) {
    return String(s).replace(/[\u0000-\u001f\u007f-\u009f]/g, function (c) {
      var n = c.charCodeAt(0);
      return { 10: '\\n', 13: '\\r', 9: '\\t' }[n] || '\\x' + (n < 16 ? '0' : '') + n.toString(16);
    });
  }
  function esc(s) {
    return vis(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  }
  function val(name, i) { var d = dim[name]; return d ? d.levels[d.codes[i]] : ''; }
  function fmtInt(n) { return n.toLocaleString('en-US'); }
  function fmtPct(p) { return isFinite(p) ? (100 * p).toFixed(1) + '%' : '—'; }
  function fmtNum(v) { return String(Math.round(v * 1000) / 1000); }
  function fmtS(s) { return (Math.round(s * 10) / 10).toString(); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = vis(text);
    return e;
  }

  // ---- state in the URL hash ----
  function readState() {
    var q = new URLSearchParams(location.hash.replace(/^#/, ''));
    var st = { f: {}, outcome: q.get('outcome') || '', fired: q.get('fired') || '', page: Math.max(1, parseInt(q.get('page') || '1', 10) || 1), ep: null };
    FILTERS.forEach(function (n) { if (q.has(n)) st.f[n] = q.get(n); });
    if (q.has('ep')) {
      var i = parseInt(q.get('ep'), 10);
      if (i >= 0 && i < N) st.ep = i;
    }
    return st;
  }
  function hashOf(st, ep, page) {
    var q = new URLSearchParams();
    FILTERS.forEach(function (n) { if (st.f[n] != null) q.set(n, st.f[n]); });
    if (st.outcome) q.set('outcome', st.outcome);
    if (st.fired) q.set('fired', st.fired);
    if (page && page > 1) q.set('page', page);
    if (ep != null) q.set('ep', ep);
    return '#' + q.toString();
  }

  // ---- filtering ----
  var cache = { key: null, sel: null };
  function selection(st) {
    var key = hashOf(st, null, 0);
    if (cache.key === key) return cache.sel;
    var conds = [];
    FILTERS.forEach(function (n) {
      if (st.f[n] == null) return;
      conds.push([dim[n].codes, dim[n].levels.indexOf(st.f[n])]);
    });
    var o = st.outcome, neg = o.charAt(0) === '!', bit = FLAG[o.replace('!', '')] || 0;
    var rec = o === 'recovered' && dim.recovery ? dim.recovery.levels.indexOf('none') : null;
    var fired = st.fired;
    var out = new Int32Array(N), m = 0;
    outer: for (var i = 0; i < N; i++) {
      for (var c = 0; c < conds.length; c++) if (conds[c][0][i] !== conds[c][1]) continue outer;
      var fl = D.flags[i];
      if (bit && (((fl & bit) !== 0) === neg)) continue;
      if (rec !== null && dim.recovery.codes[i] === rec) continue;
      if (fired && (((fl & FLAG.fault_fired) !== 0) !== (fired === '1'))) continue;
      out[m++] = i;
    }
    cache = { key: key, sel: out.subarray(0, m) };
    return cache.sel;
  }

  // ---- list ----
  function buildFilters(st) {
    var form = $('filters');
    form.textContent = '';
    function addSelect(name, options, current) {
      var lab = el('label', { 'for': 'f-' + name });
      lab.appendChild(document.createTextNode(LABEL[name] || name));
      var s = el('select', { id: 'f-' + name, name: name });
      options.forEach(function (o) {
        var op = el('option', { value: o[0] }, o[1]);
        if (o[0] === current) op.selected = true;
        s.appendChild(op);
      });
      s.addEventListener('change', function () {
        var st2 = readState();
        if (name === 'outcome') st2.outcome = s.value;
        else if (name === 'fired') st2.fired = s.value;
        else if (s.value === '__any__') delete st2.f[name];
        else st2.f[name] = s.value;
        location.hash = hashOf(st2, null, 1);
      });
      lab.appendChild(s);
      form.appendChild(lab);
    }
    FILTERS.forEach(function (n) {
      var lv = dim[n].levels.slice().sort();
      if (lv.length < 2 && st.f[n] == null) return; // nothing to choose
      var opts = [['__any__', 'any']].concat(lv.map(function (v) { return [v, v === '' ? '(empty)' : v]; }));
      addSelect(n, opts, st.f[n] == null ? '__any__' : st.f[n]);
    });
    addSelect('outcome', OUTCOMES, st.outcome);
    addSelect('fired', FIRED, st.fired);
    var reset = el('button', { type: 'button', id: 'reset' }, 'Clear filters');
    reset.addEventListener('click', function () { location.hash = '#'; });
    form.appendChild(reset);
  }

  function summary(sel) {
    var sw = 0, ev = {}, wev = {};
    var outs = ['duplicated', 'eos', 'overclaim', 'task_success'];
    outs.forEach(function (o) { ev[o] = 0; wev[o] = 0; });
    var fired = 0;
    for (var k = 0; k < sel.length; k++) {
      var i = sel[k], w = weights ? weights[i] : 1, fl = D.flags[i];
      sw += w;
      for (var j = 0; j < outs.length; j++) if (fl & FLAG[outs[j]]) { ev[outs[j]]++; wev[outs[j]] += w; }
      if (fl & FLAG.fault_fired) fired++;
    }
    var names = { duplicated: 'Duplicated', eos: 'Exactly once (EOS)', overclaim: 'Overclaim', task_success: 'Task success' };
    var h = '<p><span class="count" id="count">' + fmtInt(sel.length) + '</span> of ' + fmtInt(N) + ' episodes match' +
      (sel.length ? ' (' + fmtInt(fired) + ' with the fault fired)' : '') + '.</p>';
    h += '<table class="data rates" id="rates"><caption class="sr-only">Counts and rates of the matching episodes</caption>' +
      '<thead><tr><th scope="col">Outcome</th><th scope="col" class="num">Episodes</th><th scope="col" class="num">Rate</th></tr></thead><tbody>';
    outs.forEach(function (o) {
      h += '<tr data-outcome="' + o + '"><th scope="row">' + names[o] + '</th><td class="num events">' + fmtInt(ev[o]) + '</td><td class="num rate">' +
        fmtPct(sw > 0 ? wev[o] / sw : NaN) + '</td></tr>';
    });
    h += '</tbody></table><p class="muted">Rates are Σw·y / Σw with the ledger\'s weight column, as <code>limbo-analyze rates</code> computes them.</p>';
    $('summary').innerHTML = h;
  }

  function badges(i) {
    var fl = D.flags[i], b = '';
    if (fl & FLAG.duplicated) b += '<span class="badge b-dup">✕ duplicated</span>';
    if (fl & FLAG.eos) b += '<span class="badge b-eos">✓ EOS</span>';
    if (fl & FLAG.overclaim) b += '<span class="badge b-over">! overclaim</span>';
    if (!(fl & FLAG.task_success)) b += '<span class="badge b-fail">○ task failed</span>';
    return b;
  }

  function pager(node, st, page, pages, total) {
    node.textContent = '';
    var first = (page - 1) * PAGE + 1, last = Math.min(total, page * PAGE);
    var prev = el('button', { type: 'button' }, '← previous page');
    prev.disabled = page <= 1;
    prev.addEventListener('click', function () { location.hash = hashOf(st, null, page - 1); });
    var next = el('button', { type: 'button' }, 'next page →');
    next.disabled = page >= pages;
    next.addEventListener('click', function () { location.hash = hashOf(st, null, page + 1); });
    var info = el('span', {}, total ? 'Showing ' + fmtInt(first) + '–' + fmtInt(last) + ' of ' + fmtInt(total) +
      ' (' + PAGE + ' a page; page ' + page + ' of ' + pages + ')' : 'No episode matches these filters.');
    node.appendChild(prev); node.appendChild(info); node.appendChild(next);
  }

  function showList(st) {
    $('episode-view').hidden = true;
    $('list-view').hidden = false;
    document.title = 'LIMBO episodes';
    buildFilters(st);
    var sel = selection(st);
    summary(sel);
    var pages = Math.max(1, Math.ceil(sel.length / PAGE));
    var page = Math.min(st.page, pages);
    pager($('pager-top'), st, page, pages, sel.length);
    pager($('pager-bottom'), st, page, pages, sel.length);
    var rows = [];
    for (var k = (page - 1) * PAGE; k < Math.min(sel.length, page * PAGE); k++) {
      var i = sel[k];
      rows.push('<tr><td class="num">' + (k + 1) + '</td><td><a href="' + esc(hashOf(st, i, 0)) + '">' + esc(D.ids[i]) + '</a></td><td>' +
        esc(val('model', i)) + '</td><td>' + esc(val('harness', i)) + '</td><td>' + esc(val('condition', i)) + '</td><td>' + esc(val('contract', i)) +
        '</td><td>' + esc(val('fault_mode', i)) + '</td><td>' + esc(val('template', i)) + '</td><td>' + badges(i) + '</td><td>' + esc(val('recovery', i)) + '</td></tr>');
    }
    $('list').tBodies[0].innerHTML = rows.join('');
  }

  // ---- episode ----
  var chunks = {}, loading = {};
  window.LIMBO_CHUNK = function (c, arr) { chunks[c] = arr; };
  function withDetail(i, fn) {
    if (!D.meta.timeline) return fn(null, null);
    var c = Math.floor(i / D.meta.chunk);
    if (chunks[c]) return fn(chunks[c][i - c * D.meta.chunk], null);
    if (!loading[c]) {
      loading[c] = [];
      var s = document.createElement('script');
      s.src = 'data/chunk-' + String(c).padStart(5, '0') + '.js';
      s.onload = function () { var w = loading[c]; delete loading[c]; w.forEach(function (f) { f(); }); };
      s.onerror = function () { var w = loading[c]; delete loading[c]; w.forEach(function (f) { f('could not load ' + s.src); }); };
      document.head.appendChild(s);
    }
    loading[c].push(function (err) { fn(err ? null : (chunks[c] || [])[i - c * D.meta.chunk], err || null); });
  }

  var ROLE_COLOUR = { 'focal write': '#D55E00', 're-issue': '#0072B2', 'read-back': '#56B4E9', 'write': '#E69F00', 'read': '#9ccbe8', 'wait': '#A0A0A0', 'oracle': '#CC79A7', 'unknown tool': '#1a1a1a' };
  var ROLE_SHORT = { 'focal write': 'focal', 're-issue': 're-issue', 'read-back': 'read-back', 'wait': 'wait', 'oracle': 'oracle' };
  var OUT_SHORT = { ok: '', timeout: 'timeout', http400: '400', http404: '404', http409: '409', http412: '412', http429: '429', http500: '500', conn_refused: 'refused' };

  function effectGlyph(e) {
    if (e.absorbed) return { shape: 'ring', colour: '#606060', label: 'absorbed (no-op)' };
    switch (e.source) {
      case 'late': return { shape: 'circle', colour: '#D55E00', label: 'late commit' };
      case 'redelivery': return { shape: 'diamond', colour: '#CC79A7', label: 'redelivery' };
      case 'partial': return { shape: 'square', colour: '#E69F00', label: 'partial batch' };
    }
    return { shape: 'circle', colour: '#009E73', label: 'commit' };
  }
  function glyphSVG(g, x, y, r) {
    switch (g.shape) {
      case 'ring': return '<circle cx="' + x + '" cy="' + y + '" r="' + r + '" fill="#fff" stroke="' + g.colour + '" stroke-width="2"/>';
      case 'diamond': return '<path d="M' + x + ' ' + (y - r - 1) + 'L' + (x + r + 1) + ' ' + y + 'L' + x + ' ' + (y + r + 1) + 'L' + (x - r - 1) + ' ' + y + 'Z" fill="' + g.colour + '"/>';
      case 'square': return '<rect x="' + (x - r) + '" y="' + (y - r) + '" width="' + 2 * r + '" height="' + 2 * r + '" fill="' + g.colour + '"/>';
    }
    return '<circle cx="' + x + '" cy="' + y + '" r="' + r + '" fill="' + g.colour + '"/>';
  }

  // placer puts labels on the lowest free level (as Figure 1 does).
  function Placer() { this.right = []; }
  Placer.prototype.level = function (x0, x1) {
    for (var l = 0; l < this.right.length; l++) if (x0 > this.right[l] + 4) { this.right[l] = x1; return l; }
    this.right.push(x1);
    return this.right.length - 1;
  };

  function timelineSVG(d, idLabel) {
    var W = 1000, L = 70, R = 20;
    var end = 0, active = 0;
    d.calls.forEach(function (c) { end = Math.max(end, c.t + c.lat); active = Math.max(active, c.t + c.lat); });
    d.effects.forEach(function (e) { end = Math.max(end, e.committed); if (e.source !== 'late') active = Math.max(active, e.committed); });
    var round30 = function (t) { return Math.max(30, Math.ceil((t + 10) / 30) * 30); };
    end = round30(end);
    active = round30(active);
    // A late commit long after the agent stopped (a heavy-tail δ of up to
    // 2 h) would crush the calls into a sliver: then the axis breaks, the
    // agent's activity keeps 70% of the width and the wait until the
    // commit is drawn compressed after a marked gap.
    var broken = end > 3 * active, GAP = 14, split = L + 0.7 * (W - L - R);
    var x = broken ? function (t) {
      return t <= active ? L + (split - L) * t / active : split + GAP + (W - R - split - GAP) * (t - active) / (end - active);
    } : function (t) { return L + (W - L - R) * t / end; };
    var cw = 6.2; // average glyph width of the 11 px font, for label placement
    var above = new Placer(), below = new Placer();
    var callLabels = d.calls.map(function (c) {
      // The role in words as well as in colour (wait bars are grey and say so).
      var s = '#' + c.seq + (ROLE_SHORT[c.role] ? ' ' + ROLE_SHORT[c.role] : '') +
        (OUT_SHORT[c.outcome] ? ': ' + OUT_SHORT[c.outcome] : (OUT_SHORT[c.outcome] === '' ? '' : ': ' + c.outcome));
      var x0 = x(c.t), w = s.length * cw;
      return { s: s, x0: Math.min(x0, W - R - w), lvl: above.level(Math.min(x0, W - R - w), Math.min(x0, W - R - w) + w) };
    });
    var effs = d.effects.map(function (e) {
      var g = effectGlyph(e);
      var s = (e.repeat ? '×' : '') + g.label + ' (call ' + e.seq + ')';
      var w = s.length * cw, lx = Math.max(L - 40, Math.min(x(e.committed) - w / 2, W - R - w));
      return { e: e, g: g, s: s, lx: lx, lvl: below.level(lx, lx + w) };
    });
    var lh = 14, top = 14 + above.right.length * lh;
    var agentY = top + 16, ledgerY = agentY + 70, H = ledgerY + 20 + below.right.length * lh + 34;
    var o = [];
    o.push('<svg class="timeline" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-labelledby="tl-title tl-desc" xmlns="http://www.w3.org/2000/svg">');
    o.push('<title id="tl-title">Timeline of ' + esc(idLabel) + '</title>');
    o.push('<desc id="tl-desc">' + esc(d.calls.length + ' calls on the agent lane and ' + d.effects.length + ' effects on the ledger lane, over ' + end + ' simulated seconds; the tables below list them.') + '</desc>');
    o.push('<defs><pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#fff"/><line x1="0" y1="0" x2="0" y2="5" stroke="currentColor" stroke-width="3"/></pattern></defs>');
    // Axis and lanes.
    o.push('<g class="axis">');
    [agentY, ledgerY].forEach(function (y) { o.push('<line x1="' + L + '" y1="' + y + '" x2="' + (W - R) + '" y2="' + y + '" stroke="#b0b0b0" stroke-width="1"/>'); });
    o.push('<text x="4" y="' + (agentY + 4) + '">agent</text><text x="4" y="' + (ledgerY + 4) + '">ledger</text>');
    var niceStep = function (span) { return [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].find(function (s) { return span / s <= 8; }) || 3600; };
    var axY = H - 20;
    var tick = function (t) {
      o.push('<line x1="' + x(t) + '" y1="' + axY + '" x2="' + x(t) + '" y2="' + (axY + 4) + '" stroke="#444"/><text x="' + x(t) + '" y="' + (axY + 15) + '" text-anchor="middle">' + t + '</text>');
    };
    var step = niceStep(broken ? active : end), t;
    if (broken) {
      o.push('<line x1="' + L + '" y1="' + axY + '" x2="' + split + '" y2="' + axY + '" stroke="#444"/><line x1="' + (split + GAP) + '" y1="' + axY + '" x2="' + (W - R) + '" y2="' + axY + '" stroke="#444"/>');
      [agentY, ledgerY, axY].forEach(function (y) {
        o.push('<path d="M' + (split + 2) + ' ' + (y + 6) + 'l4 -12M' + (split + GAP - 6) + ' ' + (y + 6) + 'l4 -12" stroke="#444" stroke-width="1.2"/>');
      });
      for (t = 0; t <= active + 1e-9; t += step) tick(t);
      var step2 = niceStep(end - active);
      for (t = Math.ceil((active + step2 / 2) / step2) * step2; t <= end + 1e-9; t += step2) tick(t);
    } else {
      o.push('<line x1="' + L + '" y1="' + axY + '" x2="' + (W - R) + '" y2="' + axY + '" stroke="#444"/>');
      for (t = 0; t <= end + 1e-9; t += step) tick(t);
    }
    o.push('<text x="' + L + '" y="' + (axY - 5) + '">simulated seconds since the episode began' + (broken ? ' (the axis breaks at ' + active + ' s: the wait for the late commit is compressed)' : '') + '</text></g>');
    // Effects: dotted link from the send that caused them, a glyph, a label.
    effs.forEach(function (f) {
      var e = f.e, cx = x(e.committed);
      o.push('<line x1="' + x(e.issued) + '" y1="' + (agentY + 7) + '" x2="' + cx + '" y2="' + (ledgerY - 5) + '" stroke="' + f.g.colour + '" stroke-width="' + (e.focal ? 1.2 : 0.7) + '" stroke-dasharray="2 3"/>');
      o.push('<g data-effect="' + e.seq + '">' + glyphSVG(f.g, cx, ledgerY, e.focal ? 5 : 3.5) + '</g>');
      o.push('<text x="' + f.lx + '" y="' + (ledgerY + 18 + f.lvl * lh) + '"' + (e.repeat ? ' font-weight="700"' : '') + '>' + esc(f.s) + '</text>');
    });
    // Calls: bars from send to answer; failures hatched, the faulted one marked.
    d.calls.forEach(function (c, k) {
      var col = ROLE_COLOUR[c.role] || '#1a1a1a';
      var x0 = x(c.t), x1 = Math.max(x0 + 3, x(c.t + c.lat));
      var fill = c.outcome === 'ok' ? col : 'url(#hatch)';
      o.push('<g data-call="' + c.seq + '" style="color:' + col + '"><rect x="' + x0 + '" y="' + (agentY - 6) + '" width="' + (x1 - x0) + '" height="12" fill="' + fill + '" stroke="' + col + '" stroke-width="1.5"/>');
      if (c.faulted) {
        o.push('<path d="M' + x0 + ' ' + (agentY + 9) + 'l-6 10h12z" fill="#D55E00" stroke="#fff" stroke-width=".5"/><text x="' + (x0 + 8) + '" y="' + (agentY + 19) + '" font-weight="700">fault: ' + esc(d.fault.mode) + '</text>');
      }
      var lb = callLabels[k];
      o.push('<text x="' + lb.x0 + '" y="' + (agentY - 10 - lb.lvl * lh) + '">' + esc(lb.s) + '</text></g>');
    });
    o.push('</svg>');
    return o.join('');
  }

  var LEGEND = '<ul class="legend" aria-label="Legend">' +
    '<li><svg width="22" height="12" aria-hidden="true"><rect x="1" y="1" width="20" height="10" fill="#D55E00"/></svg>focal write</li>' +
    '<li><svg width="22" height="12" aria-hidden="true"><rect x="1" y="1" width="20" height="10" fill="#0072B2"/></svg>re-issue</li>' +
    '<li><svg width="22" height="12" aria-hidden="true"><rect x="1" y="1" width="20" height="10" fill="#56B4E9"/></svg>read-back</li>' +
    '<li><svg width="22" height="12" aria-hidden="true"><rect x="1" y="1" width="20" height="10" fill="#E69F00"/></svg>other write</li>' +
    '<li><svg width="22" height="12" aria-hidden="true"><rect x="1" y="1" width="20" height="10" fill="#A0A0A0"/></svg>wait</li>' +
    '<li><svg width="22" height="12" aria-hidden="true" style="color:#444"><defs><pattern id="lh" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="5" stroke="#444" stroke-width="3"/></pattern></defs><rect x="1" y="1" width="20" height="10" fill="url(#lh)" stroke="#444"/></svg>hatched: timeout or error</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><path d="M7 2l-6 10h12z" fill="#D55E00"/></svg>where the fault was injected</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="5" fill="#009E73"/></svg>commit</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="5" fill="#D55E00"/></svg>late commit</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><path d="M7 1L13 7L7 13L1 7Z" fill="#CC79A7"/></svg>redelivery</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><rect x="2" y="2" width="10" height="10" fill="#E69F00"/></svg>partial batch</li>' +
    '<li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="5" fill="#fff" stroke="#606060" stroke-width="2"/></svg>absorbed by a key (no new effect)</li>' +
    '<li><b>×</b>&nbsp;a repeat of a logical action (bold)</li></ul>';

  function fieldsDL(i) {
    var h = '<dl class="fields">';
    ['file', 'experiment', 'model', 'harness', 'condition', 'cue', 'contract', 'task', 'template', 'service', 'focal_write', 'platform', 'write_class', 'read_path', 'fault_mode', 'recovery'].forEach(function (n) {
      if (dim[n]) h += '<dt>' + esc(n) + '</dt><dd>' + esc(val(n, i) || '—') + '</dd>';
    });
    ['delay_s', 'weight', 'instance', 'focal_index'].forEach(function (n) { if (num[n]) h += '<dt>' + n + '</dt><dd>' + fmtNum(num[n][i]) + '</dd>'; });
    return h + '</dl>';
  }
  function gradesDL(i) {
    var fl = D.flags[i], yes = function (b) { return (fl & FLAG[b]) ? 'yes' : 'no'; };
    var h = '<dl class="fields">';
    ['duplicated', 'task_success', 'eos', 'overclaim', 'fault_fired', 'reported_success', 'uncertainty_listed', 'reversible'].forEach(function (b) { h += '<dt>' + b + '</dt><dd>' + yes(b) + '</dd>'; });
    ['expected_commits', 'focal_commits', 'tool_calls', 'agent_time_s'].forEach(function (n) { if (num[n]) h += '<dt>' + n + '</dt><dd>' + fmtNum(num[n][i]) + '</dd>'; });
    return h + '</dl>';
  }

  function showEpisode(st, done) {
    var i = st.ep;
    $('list-view').hidden = true;
    $('episode-view').hidden = false;
    var sel = selection(st);
    var k = Array.prototype.indexOf.call(sel, i);
    var prev = k > 0 ? sel[k - 1] : null, next = k >= 0 && k + 1 < sel.length ? sel[k + 1] : null;
    var nav = function (a, to) {
      a.href = to == null ? '#' : hashOf(st, to, 0);
      a.setAttribute('aria-disabled', to == null ? 'true' : 'false');
      if (to == null) a.setAttribute('tabindex', '-1'); else a.removeAttribute('tabindex');
    };
    nav($('ep-prev'), prev); nav($('ep-next'), next);
    $('ep-back').href = hashOf(st, null, k >= 0 ? Math.floor(k / PAGE) + 1 : 1);
    $('ep-pos').textContent = k >= 0 ? 'episode ' + fmtInt(k + 1) + ' of ' + fmtInt(sel.length) + ' in the filtered list' : 'not in the filtered list';
    $('ep-h').textContent = vis(D.ids[i]);
    document.title = D.ids[i] + ' · LIMBO episodes';
    var fl = D.flags[i];
    var v = $('ep-verdict');
    v.className = 'verdict' + (fl & FLAG.duplicated ? ' dup' : (fl & FLAG.eos ? ' eos' : ''));
    v.innerHTML = '<p>Grader: ' + badges(i) + '</p><p class="reason" id="reason">…</p>';
    $('ep-body').innerHTML = '<p>Loading the timeline…</p>';
    withDetail(i, function (d, err) {
      if (readState().ep !== i) return; // the reader moved on
      var h = '';
      if (err) {
        $('reason').textContent = 'The timeline could not be loaded (' + err + ').';
      } else if (!d) {
        $('reason').textContent = 'No calls or effects in the ledger for this episode: grades only.';
      } else {
        $('reason').textContent = vis(d.reason);
        var rep = d.report ? 'the agent reported “' + d.report.status + '”' + (d.report.uncertainties && d.report.uncertainties.length ? ', listing uncertainties: ' + d.report.uncertainties.join('; ') : ', with no uncertainty listed')
          : 'the agent ' + ((fl & FLAG.reported_success) ? 'reported success' : 'did not report success') + ' (the export does not carry the final report\'s text)';
        var verdict = (fl & FLAG.duplicated) ? 'duplicated' : (!(fl & FLAG.task_success) ? 'task failed' : ((fl & FLAG.eos) ? 'exactly once' : 'not exactly once'));
        v.insertAdjacentHTML('beforeend', '<p id="report">Final report: ' + esc(rep) + ' · grader: ' + esc(verdict) + ((fl & FLAG.overclaim) ? ' → <span class="badge b-over">! overclaim</span>' : '') + '</p>');
        h += '<h3>Fault</h3><p class="fault" id="fault">' + esc(d.fault.text) + '</p>';
        h += '<h3>Timeline</h3>' + timelineSVG(d, D.ids[i]) + LEGEND;
        h += '<h3 id="calls-h">Calls (' + d.calls.length + ')</h3><table class="data" id="calls" aria-labelledby="calls-h"><thead><tr><th scope="col" class="num">seq</th><th scope="col" class="num">t (s)</th><th scope="col">tool</th><th scope="col">role</th><th scope="col">arguments</th><th scope="col">key</th><th scope="col">observed</th></tr></thead><tbody>';
        d.calls.forEach(function (c) {
          h += '<tr data-seq="' + c.seq + '" data-t="' + c.t + '" data-tool="' + esc(c.tool) + '" data-outcome="' + esc(c.outcome) + '"' + (c.faulted ? ' class="faulted"' : '') + '><td class="num">' + c.seq + '</td><td class="num">' + fmtS(c.t) + '</td><td>' + esc(c.tool) + '</td><td>' + esc(c.role) +
            (c.faulted ? ' <span class="mark m-err">▲ fault injected</span>' : '') + '</td><td class="args">' + esc(c.args) + '</td><td class="key"><code>' + esc(c.key) + '</code></td><td' +
            (c.outcome !== 'ok' ? ' class="mark m-err"' : '') + '>' + (c.outcome !== 'ok' ? '⚠ ' : '') + esc(c.observed) + '</td></tr>';
        });
        h += '</tbody></table>';
        h += '<h3 id="effects-h">Effects on the ledger (' + d.effects.length + ')</h3><table class="data" id="effects" aria-labelledby="effects-h"><thead><tr><th scope="col" class="num">call</th><th scope="col">tool</th><th scope="col">resource</th><th scope="col">origin</th><th scope="col" class="num">issued (s)</th><th scope="col" class="num">committed (s)</th><th scope="col">key</th><th scope="col">focal</th><th scope="col">note</th></tr></thead><tbody>';
        d.effects.forEach(function (e) {
          h += '<tr data-seq="' + e.seq + '" data-tool="' + esc(e.tool) + '" data-source="' + esc(e.source) + '" data-committed="' + e.committed + '" data-absorbed="' + e.absorbed + '"' + (e.repeat ? ' class="repeat"' : (e.absorbed ? ' class="absorbed"' : '')) + '><td class="num">' + e.seq + '</td><td>' + esc(e.tool) + '</td><td><code>' + esc(e.resource) + '</code></td><td>' +
            esc(e.origin) + '</td><td class="num">' + fmtS(e.issued) + '</td><td class="num">' + fmtS(e.committed) + '</td><td><code>' + esc(e.key) + '</code></td><td>' + (e.focal ? 'focal' : '') + '</td><td>' +
            (e.repeat ? '<span class="mark m-err">× repeat of a logical action</span>' : (e.absorbed ? 'absorbed: no new effect' : '')) + '</td></tr>';
        });
        h += '</tbody></table>';
      }
      h += '<div class="cols"><div><h3>Design</h3>' + fieldsDL(i) + '</div><div><h3>Grades</h3>' + gradesDL(i) + '</div></div>';
      $('ep-body').innerHTML = h;
      if (done) done();
    });
  }

  // ---- routing and keys ----
  // LIMBO_TIMES records how long each view took to draw (ms), for the
  // browser test and for anyone curious: ready is since navigation start.
  var times = window.LIMBO_TIMES = { ready: null, last: null };
  function route() {
    var st = readState(), t = performance.now();
    $('loading').hidden = true;
    if (st.ep != null) {
      showEpisode(st, function () { times.last = { view: 'episode', ep: st.ep, ms: performance.now() - t }; });
    } else {
      showList(st);
      times.last = { view: 'list', ms: performance.now() - t };
    }
    if (times.ready == null) times.ready = performance.now();
  }
  document.addEventListener('keydown', function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var t = ev.target && ev.target.tagName;
    if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA') return;
    var st = readState();
    if (st.ep == null) return;
    var go = function (id) { var a = $(id); if (a.getAttribute('aria-disabled') !== 'true') { location.hash = a.getAttribute('href'); ev.preventDefault(); } };
    if (ev.key === 'ArrowLeft' || ev.key === 'k') go('ep-prev');
    else if (ev.key === 'ArrowRight' || ev.key === 'j') go('ep-next');
    else if (ev.key === 'Escape' || ev.key === 'u') { location.hash = $('ep-back').getAttribute('href'); ev.preventDefault(); }
  });
  $('home').addEventListener('click', function (ev) { ev.preventDefault(); location.hash = '#'; });
  window.addEventListener('hashchange', route);

  var m = D.meta;
  $('source').textContent = vis(m.files.join(', ')) + ' · ' + fmtInt(m.shown) + ' episodes' + (m.shown < m.read ? ' (a sample of ' + fmtInt(m.read) + ')' : '') +
    (m.timeline ? ' · ' + fmtInt(m.timeline) + ' with timelines' : ' · grades only');
  m.notes.forEach(function (n) { $('notes').appendChild(el('p', { role: 'note' }, n)); });
  route();
})();
