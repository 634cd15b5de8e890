// The run viewer: draws the run embedded in #run (see runview.go's page
// for its layout) and moves a cursor through its events.
'use strict';
(function () {
  const R = JSON.parse(document.getElementById('run').textContent);
  const N = R.t.length;
  // the times come as the time since the event before: put back whole
  const T = new Float64Array(N);
  for (let i = 0, t = 0; i < N; i++) T[i] = t += R.t[i];
  // the states come as the values that changed since the host's state
  // before; a host keeps, every SNAP of its states, the whole state, from
  // which valuesOf puts any back whole
  const SNAP = 64;
  const F = R.fieldNames.length;
  const HS = R.states.map((rows) => {
    const ev = new Int32Array(rows.length);
    const snaps = [];
    let cur = null;
    rows.forEach((row, j) => {
      ev[j] = row[0];
      cur = applyState(cur, row);
      if (j % SNAP === 0) snaps.push(cur && cur.slice());
    });
    return { ev, rows, snaps };
  });

  // applyState returns the values (an array by field) after row, given cur
  // before it; cur may be changed.
  function applyState(cur, [, fields, whole]) {
    if (fields === null) return null;
    if (whole || cur === null) cur = new Array(F);
    for (let k = 0; k < fields.length; k += 2) cur[fields[k]] = fields[k + 1];
    return cur;
  }

  // valuesOf returns host h's values (an array by field; null: down) in its
  // state j.
  function valuesOf(h, j) {
    const { rows, snaps } = HS[h];
    const base = j - (j % SNAP);
    let cur = snaps[base / SNAP] && snaps[base / SNAP].slice();
    for (let i = base + 1; i <= j; i++) cur = applyState(cur, rows[i]);
    return cur;
  }

  const kindName = R.kinds;
  const $ = (id) => document.getElementById(id);

  // ---- what the data says, worked out once ----

  const hostCount = R.hosts.length;
  const kindIndex = {};
  kindName.forEach((k, i) => { kindIndex[k] = i; });
  const isKind = (i, name) => kindIndex[name] !== undefined && R.k[i] === kindIndex[name];
  const clientKinds = new Set(['invoke', 'return'].map((k) => kindIndex[k]).filter((k) => k !== undefined));
  const msgKinds = new Set(['send', 'deliver', 'dup', 'reply', 'lost', 'done'].map((k) => kindIndex[k]).filter((k) => k !== undefined));
  const REPLY = 1, DUP = 2, LOST = 4;

  let tMin = N ? T[0] : 0;
  let tMax = Math.max(R.summary.now || 0, N ? T[N - 1] : 0);
  for (const o of R.ops) {
    tMin = Math.min(tMin, o.call);
    tMax = Math.max(tMax, o.call, o.return);
  }
  for (const f of R.faults) tMax = Math.max(tMax, f.at);
  if (tMax <= tMin) tMax = tMin + 1e6;

  // msgOf[i] is the message event i is an end of, -1 if none.
  const msgOf = new Int32Array(N).fill(-1);
  let maxMsgDur = 0;
  R.msgs.forEach((m, j) => {
    if (msgOf[m[0]] < 0) msgOf[m[0]] = j;
    if (msgOf[m[1]] < 0) msgOf[m[1]] = j;
    maxMsgDur = Math.max(maxMsgDur, T[m[1]] - T[m[0]]);
  });

  // opAt[i] is the operation event i begins or ends, -1 if none.
  const opAt = new Int32Array(N).fill(-1);
  R.ops.forEach((o, j) => {
    if (o.invoke >= 0) opAt[o.invoke] = j;
    if (o.ret >= 0) opAt[o.ret] = j;
  });
  const opRole = new Map(); // op → 'violating' or 'witness'
  (R.verdict.ops || []).forEach((o, j) => opRole.set(o, j === 0 ? 'violating' : 'witness'));

  const clientLane = new Map();
  R.clients.forEach((c, j) => clientLane.set(c, j));

  // methods are the Whats of the messages' sends and replies, for the
  // message filter; methodOf maps a What to its method's ("KV.Get: ok",
  // a return's, to "KV.Get"), or to itself.
  const whatIndex = new Map(R.whats.map((w, j) => [w, j]));
  const methodOf = R.whats.map((w, j) => {
    const cut = w.indexOf(': ');
    return cut > 0 && whatIndex.has(w.slice(0, cut)) ? whatIndex.get(w.slice(0, cut)) : j;
  });
  const methods = [];
  {
    const seen = new Set();
    for (const m of R.msgs) {
      const w = R.w[m[0]];
      if (w >= 0 && !seen.has(w)) { seen.add(w); methods.push(w); }
    }
    methods.sort((a, b) => (R.whats[a] < R.whats[b] ? -1 : 1));
  }

  // ---- view state ----

  let cursor = N ? 0 : -1;
  let view = { t0: tMin, t1: tMax };
  let selectedOp = -1;
  const hostOn = R.hosts.map(() => true);
  const kindOn = kindName.map(() => true);
  const methodOn = new Map(methods.map((w) => [w, true]));

  const shown = (i) => {
    if (!kindOn[R.k[i]]) return false;
    const h = R.h[i];
    if (h >= 0 && !hostOn[h]) return false;
    if (msgKinds.has(R.k[i]) && R.w[i] >= 0 && methodOn.get(methodOf[R.w[i]]) === false) return false;
    return true;
  };

  // ---- helpers ----

  const hostName = (h) => (h >= 0 && h < hostCount ? R.hosts[h] : h < 0 ? '' : 'host ' + h);

  // firstAtOrAfter returns the first event at or after time t (N if none).
  function firstAtOrAfter(t) {
    let lo = 0, hi = N;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (T[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // latest returns the index in arr (sorted by key) of the last entry
  // whose key is at most x, -1 if none.
  function latest(arr, x, key) {
    let lo = 0, hi = arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(arr[mid]) <= x) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }

  function fmtTime(ns, digits) {
    const s = ns / 1e9;
    return s.toFixed(digits === undefined ? 6 : digits) + ' s';
  }

  // downAt reports whether host h is down after event c: killed and not
  // restarted, or showing no state after a state that showed it down.
  function downAt(h, c) {
    const d = R.down[h];
    if (d.length) {
      let n = 0;
      while (n < d.length && d[n] <= c) n++;
      return n % 2 === 1;
    }
    const j = latest(HS[h].ev, c, (x) => x);
    return j >= 0 && HS[h].rows[j][1] === null;
  }

  function opText(o) {
    let s = 'client ' + o.client + ': ' + o.input;
    if (o.return >= 0) s += ' → ' + (o.output || 'ok');
    else s += ' → (no reply)';
    return s;
  }

  function describe(i) {
    if (i < 0) return 'the run recorded no events';
    const k = kindName[R.k[i]];
    const h = hostName(R.h[i]), p = hostName(R.p[i]);
    const what = R.w[i] >= 0 ? R.whats[R.w[i]] : '';
    const id = R.id[i], n = R.n[i];
    const size = n ? ', ' + n + ' B' : '';
    switch (k) {
      case 'send': return h + ' → ' + p + '  sends ' + what + ' (call ' + id + size + ')';
      case 'deliver': return p + ' → ' + h + '  ' + what + ' delivered (call ' + id + size + ')';
      case 'dup': return p + ' → ' + h + '  ' + what + ' delivered again, a duplicate (call ' + id + ')';
      case 'reply': return h + ' → ' + p + '  answers ' + what + ' (call ' + id + size + ')';
      case 'lost': return 'lost between ' + h + ' and ' + p + ': ' + what + ' (call ' + id + ')';
      case 'done': return h + '  call ' + id + ' to ' + p + ' returned: ' + what;
      case 'timer': return h + '  timer fired' + (what ? ': ' + what : '');
      case 'kill': return h + '  killed';
      case 'restart': return h + '  restarted';
      case 'drift': return h + '  clock rate ' + what;
      case 'fault': return 'fault: ' + what;
      case 'invoke':
      case 'return': {
        const o = opAt[i];
        const verb = k === 'invoke' ? 'calls ' : 'returns ';
        if (o >= 0) return verb + opText(R.ops[o]);
        return 'client ' + id + ' ' + verb + what;
      }
      default: return k + ' ' + h + (p ? ' ' + p : '') + (what ? ' ' + what : '') + (id ? ' #' + id : '');
    }
  }

  // ---- the side panel ----

  const statesTable = $('states');
  const stateCells = []; // by field, by host
  const headCells = [];
  // the table's columns: the hosts that show a state or go down
  const stateHosts = R.hosts.map((_, h) => h).filter((h) => HS[h].ev.length || R.down[h].length);
  (function buildStates() {
    const head = document.createElement('tr');
    head.appendChild(document.createElement('th'));
    stateHosts.forEach((h) => {
      const name = R.hosts[h];
      const th = document.createElement('th');
      th.dataset.host = h;
      th.textContent = name;
      head.appendChild(th);
      headCells[h] = th;
    });
    statesTable.appendChild(head);
    // the fields grouped by inspector ("raft.term": raft's term), each
    // group under its name, in the order they first show
    const group = (f) => (f.includes('.') ? f.slice(0, f.indexOf('.')) : '');
    const groups = [];
    for (const f of R.fieldNames) if (!groups.includes(group(f))) groups.push(group(f));
    const order = R.fieldNames.map((_, fi) => fi);
    order.sort((a, b) => groups.indexOf(group(R.fieldNames[a])) - groups.indexOf(group(R.fieldNames[b])) || a - b);
    let last = null;
    for (const fi of order) {
      const f = R.fieldNames[fi];
      if (group(f) !== last && groups.length > 1 || (last === null && group(f) !== '')) {
        const tr = document.createElement('tr');
        tr.className = 'group';
        const th = document.createElement('th');
        th.colSpan = stateHosts.length + 1;
        th.textContent = group(f) || 'other';
        tr.appendChild(th);
        statesTable.appendChild(tr);
      }
      last = group(f);
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.className = 'field';
      th.textContent = group(f) ? f.slice(group(f).length + 1) : f;
      th.title = f;
      tr.appendChild(th);
      const row = [];
      stateHosts.forEach((h) => {
        const td = document.createElement('td');
        td.dataset.host = h;
        td.dataset.field = f;
        tr.appendChild(td);
        row[h] = td;
      });
      statesTable.appendChild(tr);
      stateCells[fi] = row;
    }
  })();

  // fieldsOf returns host h's values after event c, an array by field
  // (null: down or nothing shown), with the index of that state.
  function fieldsOf(h, c) {
    const j = latest(HS[h].ev, c, (x) => x);
    return { j, values: j < 0 ? null : valuesOf(h, j) };
  }

  function updateStates() {
    stateHosts.forEach((h) => {
      const down = cursor >= 0 && downAt(h, cursor);
      const { j, values } = fieldsOf(h, cursor);
      let before = null;
      const now = j >= 0 && HS[h].ev[j] === cursor; // this event changed it
      if (now && j > 0) before = valuesOf(h, j - 1);
      const th = headCells[h];
      th.textContent = R.hosts[h];
      th.title = down ? R.hosts[h] + ' is down' : '';
      th.className = down ? 'down' : '';
      th.dataset.status = down ? 'down' : 'up';
      stateCells.forEach((row, fi) => {
        const td = row[h];
        if (down) {
          td.textContent = 'down';
          td.className = 'down';
          return;
        }
        const v = values && values[fi] !== undefined ? values[fi] : '';
        td.textContent = v;
        const changed = before !== null && values !== null && now && before[fi] !== values[fi];
        td.className = changed ? 'changed' : '';
      });
    });
  }

  const opsList = $('ops');
  const opItems = [];
  (function buildOps() {
    const vops = R.verdict.ops || [];
    if (!vops.length) {
      $('opsTitle').textContent = R.verdict.problem ? "the verdict's operations: none named" : 'operations';
      const li = document.createElement('li');
      li.textContent = R.ops.length + ' operations' + (R.verdict.problem ? '' : ', all judged correct');
      li.style.cursor = 'default';
      opsList.appendChild(li);
      return;
    }
    vops.forEach((o, j) => {
      const op = R.ops[o];
      const li = document.createElement('li');
      li.dataset.op = o;
      li.dataset.role = j === 0 ? 'violating' : 'witness';
      li.className = li.dataset.role;
      li.textContent = (j === 0 ? 'violating: ' : 'witness: ') + opText(op) +
        '  [' + fmtTime(op.call, 3) + ' – ' + (op.return >= 0 ? fmtTime(op.return, 3) : '…') + ']';
      li.addEventListener('click', () => {
        selectedOp = o;
        const to = op.ret >= 0 ? op.ret : op.invoke >= 0 ? op.invoke : firstAtOrAfter(op.call);
        setCursor(Math.min(to, N - 1), true);
      });
      opsList.appendChild(li);
      opItems.push(li);
    });
  })();

  const faultsList = $('faults');
  const faultItems = R.faults.map((f, j) => {
    const li = document.createElement('li');
    li.dataset.fault = j;
    li.className = f.heal ? 'heal' : '';
    li.textContent = fmtTime(f.at, 3) + '  ' + f.text;
    li.addEventListener('click', () => setCursor(faultEvent(j), true));
    faultsList.appendChild(li);
    return li;
  });
  if (!R.faults.length) {
    const li = document.createElement('li');
    li.textContent = 'none';
    faultsList.appendChild(li);
  }

  function faultEvent(j) {
    const f = R.faults[j];
    return f.event >= 0 ? f.event : Math.min(firstAtOrAfter(f.at), N - 1);
  }

  function updatePanel() {
    const c = $('cursor');
    c.textContent = cursor;
    c.dataset.index = cursor;
    $('count').textContent = N;
    $('time').textContent = cursor >= 0 ? fmtTime(T[cursor]) : '';
    $('event').textContent = describe(cursor);
    const ev = $('event');
    ev.dataset.kind = cursor >= 0 ? kindName[R.k[cursor]] : '';
    updateStates();
    const now = cursor >= 0 ? T[cursor] : 0;
    R.faults.forEach((f, j) => {
      const inforce = !f.heal && f.at <= now && (now < f.end || f.end >= tMax); // never healed: to the end
      faultItems[j].className = (f.heal ? 'heal' : inforce ? 'inforce' : '') +
        (cursor >= 0 && f.event === cursor ? ' selected' : '');
    });
    const o = cursor >= 0 ? opAt[cursor] : -1;
    opItems.forEach((li) => li.classList.toggle('selected', Number(li.dataset.op) === o || Number(li.dataset.op) === selectedOp));
  }

  // ---- header, toolbar and filters ----

  (function buildHeader() {
    const v = $('verdict');
    v.title = 'click to show it whole, or two lines of it';
    v.addEventListener('click', () => v.classList.toggle('open'));
    const text = document.createElement('span');
    v.appendChild(text);
    if (R.verdict.problem) {
      v.className = 'failed';
      const kind = R.verdict.kind && !R.verdict.problem.startsWith(R.verdict.kind) ? R.verdict.kind + ': ' : '';
      text.textContent = kind + R.verdict.problem;
    } else {
      v.className = 'passed';
      text.textContent = 'passed: the checks found nothing wrong';
    }
    const parts = [R.name, hostCount + ' hosts', R.clients.length + ' clients',
      N + ' events', R.msgs.length + ' messages', R.faults.length + ' faults', R.ops.length + ' operations',
      fmtTime(R.summary.now || tMax, 3) + ' virtual'];
    if (R.summary.hash) parts.push('trace hash ' + R.summary.hash);
    let info = parts.join(' · ');
    if (R.drawn.length) info += ' · drawn: ' + R.drawn.map((p) => p.name + '=' + p.value).join(', ');
    $('runinfo').textContent = info;
  })();

  const who = $('who');
  R.hosts.forEach((name, h) => who.add(new Option('host ' + name, 'h' + h)));
  R.clients.forEach((c) => who.add(new Option('client ' + c, 'c' + c)));

  function isOfWho(i) {
    const v = who.value;
    if (!v) return false;
    const n = Number(v.slice(1));
    if (v[0] === 'h') return R.h[i] === n;
    return clientKinds.has(R.k[i]) && R.id[i] === n;
  }

  function checkbox(parent, label, on, change) {
    const l = document.createElement('label');
    const c = document.createElement('input');
    c.type = 'checkbox';
    c.checked = on;
    c.addEventListener('change', () => { change(c.checked); filters++; layout(); draw(); });
    l.appendChild(c);
    l.appendChild(document.createTextNode(' ' + label));
    parent.appendChild(l);
    return c;
  }
  R.hosts.forEach((name, h) => { checkbox($('hostFilter'), name, true, (on) => { hostOn[h] = on; }).dataset.host = h; });
  kindName.forEach((k, j) => { checkbox($('kindFilter'), k, true, (on) => { kindOn[j] = on; }).dataset.kind = k; });
  methods.forEach((w) => { checkbox($('methodFilter'), R.whats[w], true, (on) => { methodOn.set(w, on); }).dataset.method = R.whats[w]; });

  // ---- drawing ----

  const C = {
    request: '#3b6fd0', reply: '#2a9d8f', dup: '#8e44ad', lost: '#d62828',
    fault: 'rgba(240, 150, 40, 0.22)', faultEdge: '#e08a00', net: 'rgba(220, 150, 30, 0.55)',
    down: '#c9ced5', lane: '#eef1f4', laneAlt: '#f7f9fa', text: '#1d232b', muted: '#6a7380',
    op: '#8aa4c8', opPending: '#c4d0e0', violating: '#c62828', witness: '#e08a00', cursor: '#111',
    timer: '#9aa2ab', kill: '#d62828', restart: '#2e7d32', drift: '#8e44ad', invoke: '#555', grid: '#e3e7eb',
  };

  const lanes = $('lanes'), box = $('lanesBox');
  const screen = lanes.getContext('2d');
  // what does not move with the cursor is drawn on layer, once for each
  // view and filter; a step draws layer and the cursor over it
  const layer = document.createElement('canvas');
  const layerCtx = layer.getContext('2d');
  let ctx = screen;
  let layerKey = '';
  let filters = 0; // counts the filters' changes
  const over = $('overview');
  const octx = over.getContext('2d');
  const LABEL = 112, AXIS = 24, RIGHT = 12;
  let W = 0, H = 0, dpr = 1;
  let hostY = [], hostH = 40, clientTop = 0, clientH = 14, clientsLabelY = 0;

  function layout() {
    dpr = window.devicePixelRatio || 1;
    W = box.clientWidth;
    const visibleHosts = R.hosts.map((_, h) => h).filter((h) => hostOn[h]);
    clientH = R.clients.length > 24 ? 9 : R.clients.length > 12 ? 12 : 18;
    // the hosts' lanes share what height the clients leave, 28 to 90 px each
    const room = box.clientHeight - AXIS - 6 - 20 - R.clients.length * clientH - 12;
    hostH = Math.max(28, Math.min(90, Math.floor(room / Math.max(1, visibleHosts.length))));
    hostY = R.hosts.map(() => -1);
    let y = AXIS + 6;
    visibleHosts.forEach((h) => { hostY[h] = y + hostH / 2; y += hostH; });
    clientsLabelY = y + 14;
    clientTop = y + 20;
    H = clientTop + R.clients.length * clientH + 10;
    for (const c of [lanes, layer]) {
      c.width = Math.round(W * dpr);
      c.height = Math.round(H * dpr);
      c.style.height = H + 'px';
    }
    over.width = Math.round(over.clientWidth * dpr);
    over.height = Math.round(over.clientHeight * dpr);
    density = null;
    layerKey = '';
  }

  const x = (t) => LABEL + (t - view.t0) / (view.t1 - view.t0) * (W - LABEL - RIGHT);
  const tAt = (px) => view.t0 + (px - LABEL) / (W - LABEL - RIGHT) * (view.t1 - view.t0);
  const yClient = (c) => clientTop + clientLane.get(c) * clientH + clientH / 2;

  // niceStep returns a step of 1, 2 or 5 times a power of ten that cuts
  // span into about n pieces.
  function niceStep(span, n) {
    const raw = span / n;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  function drawAxis() {
    const step = niceStep(view.t1 - view.t0, Math.max(2, Math.floor((W - LABEL) / 110)));
    const digits = Math.max(0, Math.min(9, -Math.floor(Math.log10(step / 1e9) + 1e-9)));
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'alphabetic';
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      const px = x(t);
      ctx.strokeStyle = C.grid;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(px, AXIS - 4);
      ctx.lineTo(px, H);
      ctx.stroke();
      ctx.fillStyle = C.muted;
      ctx.fillText(fmtTime(t, digits), px, AXIS - 8);
    }
  }

  function drawLanes() {
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    R.hosts.forEach((name, h) => {
      if (hostY[h] < 0) return;
      const y = hostY[h];
      ctx.fillStyle = h % 2 ? C.laneAlt : C.lane;
      ctx.fillRect(0, y - hostH / 2, W, hostH);
      ctx.strokeStyle = '#b7bfc8';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(LABEL, y);
      ctx.lineTo(W - RIGHT, y);
      ctx.stroke();
      // down: from each kill to its restart
      const d = R.down[h];
      for (let j = 0; j < d.length; j += 2) {
        const a = T[d[j]], b = j + 1 < d.length ? T[d[j + 1]] : tMax;
        if (b < view.t0 || a > view.t1) continue;
        const xa = Math.max(LABEL, x(a)), xb = Math.min(W - RIGHT, x(b));
        ctx.fillStyle = C.down;
        ctx.fillRect(xa, y - hostH / 2 + 3, xb - xa, hostH - 6);
        ctx.fillStyle = '#59616b';
        ctx.font = '11px system-ui, sans-serif';
        if (xb - xa > 40) ctx.fillText('down', xa + 6, y);
      }
    });
    if (R.clients.length) {
      ctx.fillStyle = C.muted;
      ctx.font = '600 11px system-ui, sans-serif';
      ctx.fillText('clients', 8, clientsLabelY);
    }
  }

  function drawFaults() {
    const top = AXIS, bottom = clientTop - 22;
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    R.faults.forEach((f) => {
      if (f.heal || f.end < view.t0 || f.at > view.t1) return;
      const xa = Math.max(LABEL, x(f.at)), xb = Math.min(W - RIGHT, x(f.end));
      ctx.fillStyle = C.fault;
      for (const h of f.shade) {
        if (hostY[h] < 0) continue;
        ctx.fillRect(xa, hostY[h] - hostH / 2, Math.max(2, xb - xa), hostH);
      }
      if (!f.hosts.length) {
        // the network as a whole: a band under the axis
        ctx.fillStyle = C.net;
        ctx.fillRect(xa, top + 1, Math.max(2, xb - xa), 4);
      }
    });
    // each fault's start (and heal) as a line with its text
    let lastLabelEnd = -1e9;
    R.faults.forEach((f) => {
      if (f.at < view.t0 || f.at > view.t1) return;
      const px = x(f.at);
      ctx.strokeStyle = f.heal ? '#7cb27f' : C.faultEdge;
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(px, top);
      ctx.lineTo(px, bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      if (px > lastLabelEnd + 4) {
        const label = f.text;
        const w = ctx.measureText(label).width;
        ctx.fillStyle = 'rgba(255,255,255,0.85)';
        ctx.fillRect(px + 2, top + 2, w + 6, 14);
        ctx.fillStyle = f.heal ? '#2e7d32' : '#9a5a00';
        ctx.fillText(label, px + 5, top + 3);
        lastLabelEnd = px + w + 8;
      }
    });
  }

  function arrow(x0, y0, x1, y1, color, width, dashed, head) {
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    if (dashed) ctx.setLineDash([5, 3]);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    if (dashed) ctx.setLineDash([]);
    if (!head) return;
    const a = Math.atan2(y1 - y0, x1 - x0), s = 4 + width * 2;
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - s * Math.cos(a - 0.45), y1 - s * Math.sin(a - 0.45));
    ctx.lineTo(x1 - s * Math.cos(a + 0.45), y1 - s * Math.sin(a + 0.45));
    ctx.closePath();
    ctx.fill();
  }

  function cross(px, py, r, color, width) {
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.moveTo(px - r, py - r);
    ctx.lineTo(px + r, py + r);
    ctx.moveTo(px + r, py - r);
    ctx.lineTo(px - r, py + r);
    ctx.stroke();
  }

  // msgShown reports whether message m passes the filters.
  function msgShown(m) {
    const [a, b, fl] = m;
    if (!shown(a)) return false;
    if (!(fl & LOST) && !shown(b)) return false;
    const from = R.h[a], to = R.p[a];
    return !(to >= 0 && hostY[to] < 0) && !(from >= 0 && hostY[from] < 0);
  }

  // drawMsg draws message m; emph draws it thick, as the cursor's.
  function drawMsg(m, emph, thin) {
    const [a, b, fl] = m;
    const from = R.h[a], to = R.p[a];
    if (from < 0 || to < 0 || hostY[from] < 0 || hostY[to] < 0) return;
    const x0 = x(T[a]), y0 = hostY[from];
    let x1 = x(T[b]), y1 = hostY[to];
    const color = fl & LOST ? C.lost : fl & DUP ? C.dup : fl & REPLY ? C.reply : C.request;
    const width = emph ? 3 : thin ? 0.6 : 1.2;
    if (fl & LOST) {
      y1 = (y0 + y1) / 2;
      if (x1 - x0 < 14) x1 = x0 + 14;
      arrow(x0, y0, x1, y1, color, width, false, false);
      cross(x1, y1, emph ? 6 : 4, color, emph ? 3 : 1.8);
      return;
    }
    arrow(x0, y0, x1, y1, color, width, !!(fl & DUP), !thin);
  }

  function drawMessages() {
    if (!R.msgs.length) return;
    // the messages are in the order of their first event: those in view
    // began at most maxMsgDur before it
    const first = firstAtOrAfter(view.t0 - maxMsgDur);
    let lo = 0, hi = R.msgs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (R.msgs[mid][0] < first) lo = mid + 1; else hi = mid;
    }
    const inView = [];
    for (let j = lo; j < R.msgs.length; j++) {
      const m = R.msgs[j];
      if (T[m[0]] > view.t1) break;
      if (T[m[1]] < view.t0 || !msgShown(m)) continue;
      inView.push(m);
    }
    if (inView.length <= 1500) {
      ctx.globalAlpha = 0.9;
      for (const m of inView) drawMsg(m, false, false);
      ctx.globalAlpha = 1;
      return;
    }
    // too many to tell apart: thin lines, a path a colour, and of the
    // lines that fall on the same pixels only one
    ctx.globalAlpha = 0.5;
    ctx.lineWidth = 0.6;
    for (const [flag, color] of [[0, C.request], [REPLY, C.reply], [DUP, C.dup], [LOST, C.lost]]) {
      ctx.strokeStyle = color;
      ctx.beginPath();
      const drawn = new Set();
      for (const [a, b, fl] of inView) {
        const kind = fl & LOST ? LOST : fl & DUP ? DUP : fl & REPLY;
        if (kind !== flag) continue;
        const from = R.h[a], to = R.p[a];
        const x0 = Math.round(x(T[a])), x1 = Math.round(x(T[b]));
        const key = ((x0 * 4096 + x1) * 64 + from) * 64 + to;
        if (drawn.has(key)) continue;
        drawn.add(key);
        const y0 = hostY[from], y1 = hostY[to];
        ctx.moveTo(x0, y0);
        ctx.lineTo(x1, fl & LOST ? (y0 + y1) / 2 : y1);
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }

  function drawEvents() {
    const a = firstAtOrAfter(view.t0), b = firstAtOrAfter(view.t1 + 1);
    if (b - a > 3000) {
      drawDenseEvents(a, b);
      return;
    }
    for (let i = a; i < b; i++) {
      if (!shown(i)) continue;
      const h = R.h[i];
      const k = kindName[R.k[i]];
      if (k === 'invoke' || k === 'return') continue; // the operations' bars show them
      const px = x(T[i]);
      if (h < 0) {
        if (k === 'fault') {
          ctx.fillStyle = C.faultEdge;
          diamond(px, AXIS + 1, 4);
        }
        continue;
      }
      if (hostY[h] < 0) continue;
      const y = hostY[h];
      switch (k) {
        case 'timer':
          ctx.strokeStyle = C.timer;
          ctx.lineWidth = 1.2;
          ctx.beginPath();
          ctx.arc(px, y, 3, 0, 2 * Math.PI);
          ctx.stroke();
          break;
        case 'kill':
        case 'restart':
          lifeMark(i);
          break;
        case 'drift':
          ctx.fillStyle = C.drift;
          diamond(px, y, 5);
          break;
        case 'fault':
          ctx.fillStyle = C.faultEdge;
          diamond(px, y, 5);
          break;
        default:
          ctx.fillStyle = k === 'send' || k === 'deliver' || k === 'dup' ? C.request : k === 'reply' || k === 'done' ? C.reply : k === 'lost' ? C.lost : C.muted;
          ctx.fillRect(px - 1, y - 3, 2, 6);
      }
    }
  }

  // drawDenseEvents draws events a to b, too many to tell apart, as ticks
  // in one path, and then the kills and restarts over them.
  function drawDenseEvents(a, b) {
    const kill = kindIndex.kill, restart = kindIndex.restart;
    const marks = [];
    // a tick a host a pixel column, however many events fall on it
    const cols = Math.ceil(W) + 1;
    const ticked = new Uint8Array(cols * hostCount);
    ctx.fillStyle = C.muted;
    for (let i = a; i < b; i++) {
      const h = R.h[i];
      if (h < 0 || hostY[h] < 0 || !shown(i)) continue;
      if (R.k[i] === kill || R.k[i] === restart) marks.push(i);
      const px = Math.round(x(T[i]));
      if (px < 0 || px >= cols || ticked[h * cols + px]) continue;
      ticked[h * cols + px] = 1;
      ctx.fillRect(px, hostY[h] - 3, 1, 6);
    }
    for (const i of marks) lifeMark(i);
  }

  // lifeMark draws event i, a kill (a cross) or a restart (a triangle), on
  // its host's lane.
  function lifeMark(i) {
    const px = x(T[i]), y = hostY[R.h[i]];
    if (R.k[i] === kindIndex.kill) {
      cross(px, y, 7, C.kill, 3);
      return;
    }
    ctx.fillStyle = C.restart;
    ctx.beginPath();
    ctx.moveTo(px, y - 8);
    ctx.lineTo(px + 7, y + 5);
    ctx.lineTo(px - 7, y + 5);
    ctx.closePath();
    ctx.fill();
  }

  function diamond(px, py, r) {
    ctx.beginPath();
    ctx.moveTo(px, py - r);
    ctx.lineTo(px + r, py);
    ctx.lineTo(px, py + r);
    ctx.lineTo(px - r, py);
    ctx.closePath();
    ctx.fill();
  }

  function drawOps() {
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.font = '11px system-ui, sans-serif';
    R.clients.forEach((c, j) => {
      const y = clientTop + j * clientH;
      ctx.fillStyle = j % 2 ? C.laneAlt : '#fff';
      ctx.fillRect(0, y, W, clientH);
      if (clientH >= 12) {
        ctx.fillStyle = C.muted;
        ctx.fillText('client ' + c, 8, y + clientH / 2);
      }
    });
    const hot = [];
    R.ops.forEach((o, j) => {
      const end = o.return >= 0 ? o.return : tMax;
      if (end < view.t0 || o.call > view.t1) return;
      if (opRole.has(j) || j === selectedOp) { hot.push(j); return; }
      drawOp(o, o.return >= 0 ? C.op : C.opPending, false);
    });
    // the verdict's operations over the rest, their labels over all bars
    const color = (j) => (opRole.get(j) === 'violating' ? C.violating : opRole.get(j) === 'witness' ? C.witness : C.op);
    for (const j of hot) drawOp(R.ops[j], color(j), true, false);
    for (const j of hot) drawOp(R.ops[j], color(j), true, true, opRole.get(j) === 'witness');
  }

  // drawOp draws operation o as a bar of color with its label; hot (one
  // of the verdict's) outlined, and its label drawn apart (label: the
  // label only), beside the bar if it does not fit in it: to its left if
  // left, else to its right.
  function drawOp(o, color, hot, label, left) {
    const y = yClient(o.client);
    const end = o.return >= 0 ? o.return : tMax;
    const xa = Math.max(LABEL, x(o.call)), xb = Math.min(W - RIGHT, x(end));
    const h = Math.max(4, clientH - 4);
    if (!hot || !label) {
      ctx.fillStyle = color;
      ctx.fillRect(xa, y - h / 2, Math.max(2, xb - xa), h);
      if (hot) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 1;
        ctx.strokeRect(xa, y - h / 2, Math.max(2, xb - xa), h);
        return;
      }
    }
    if (clientH < 12 || (xb - xa < 24 && !hot)) return; // no room for a label
    const text = opText(o).replace(/^client \d+: /, '');
    ctx.font = (hot ? '600 ' : '') + Math.min(11, clientH - 3) + 'px system-ui, sans-serif';
    const w = ctx.measureText(text).width;
    if (xb - xa > w + 6) {
      ctx.fillStyle = hot ? '#fff' : '#1d232b';
      ctx.fillText(text, xa + 3, y + 0.5);
    } else if (hot) {
      // beside the bar, on a white ground over what else is there
      const at = left && xa - w - 8 > LABEL ? xa - w - 8 : xb + 2;
      ctx.fillStyle = 'rgba(255, 255, 255, 0.92)';
      ctx.fillRect(at, y - h / 2, w + 6, h);
      ctx.fillStyle = color;
      ctx.fillText(text, at + 3, y + 0.5);
    }
  }

  function drawCursor() {
    if (cursor < 0) return;
    const px = x(T[cursor]);
    if (px < LABEL || px > W - RIGHT) return;
    const m = msgOf[cursor];
    if (m >= 0 && msgShown(R.msgs[m])) drawMsg(R.msgs[m], true, false);
    ctx.strokeStyle = C.cursor;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(px, AXIS - 2);
    ctx.lineTo(px, H);
    ctx.stroke();
    const h = R.h[cursor];
    let y = -1;
    if (h >= 0 && hostY[h] >= 0) y = hostY[h];
    else if (clientKinds.has(R.k[cursor]) && clientLane.has(R.id[cursor])) y = yClient(R.id[cursor]);
    if (y >= 0) {
      ctx.lineWidth = 2.5;
      ctx.beginPath();
      ctx.arc(px, y, 8, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }

  function drawLabels() {
    // the lanes' names, over whatever was drawn under them
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, AXIS, LABEL - 4, clientTop - 22 - AXIS);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    R.hosts.forEach((name, h) => {
      if (hostY[h] < 0) return;
      const down = cursor >= 0 && downAt(h, cursor);
      ctx.fillStyle = h % 2 ? C.laneAlt : C.lane;
      ctx.fillRect(0, hostY[h] - hostH / 2, LABEL - 4, hostH);
      ctx.fillStyle = down ? C.muted : C.text;
      ctx.font = '600 13px system-ui, sans-serif';
      ctx.fillText(name, 8, hostY[h] - (hostH > 30 ? 7 : 0));
      if (hostH > 30) {
        const role = roleOf(h);
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillStyle = C.muted;
        ctx.fillText(down ? 'down' : role, 8, hostY[h] + 9);
      }
    });
  }

  // roleOf returns a short line of host h's state at the cursor for its
  // lane's label: its role and term, if it shows them.
  const roleField = R.fieldNames.findIndex((f) => /(^|\.)role$/.test(f));
  const termField = R.fieldNames.findIndex((f) => /(^|\.)term$/.test(f));
  function roleOf(h) {
    const { values } = fieldsOf(h, cursor);
    if (!values) return '';
    const parts = [];
    if (roleField >= 0 && values[roleField] !== undefined) parts.push(values[roleField]);
    if (termField >= 0 && values[termField] !== undefined) parts.push('term ' + values[termField]);
    return parts.join(', ');
  }

  function draw() {
    const key = [view.t0, view.t1, W, H, dpr, filters, selectedOp].join(' ');
    if (key !== layerKey) {
      layerKey = key;
      ctx = layerCtx;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, W, H);
      drawLanes();
      drawAxis();
      drawFaults();
      drawMessages();
      drawEvents();
      drawOps();
    }
    ctx = screen;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(layer, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawCursor();
    drawLabels();
    drawOverview();
  }

  // ---- the overview: the whole run, and the stretch in view ----

  let density = null;
  function drawOverview() {
    const w = over.clientWidth, h = over.clientHeight;
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    octx.clearRect(0, 0, w, h);
    const ox = (t) => LABEL + (t - tMin) / (tMax - tMin) * (w - LABEL - RIGHT);
    if (!density) {
      density = new Float32Array(Math.max(1, Math.ceil(w)));
      for (let i = 0; i < N; i++) {
        const c = Math.floor(ox(T[i]));
        if (c >= 0 && c < density.length) density[c]++;
      }
      let mx = 1;
      for (const d of density) mx = Math.max(mx, d);
      for (let c = 0; c < density.length; c++) density[c] = Math.sqrt(density[c] / mx);
    }
    octx.fillStyle = '#f5f7f9';
    octx.fillRect(0, 0, w, h);
    for (const f of R.faults) {
      if (f.heal) continue;
      octx.fillStyle = 'rgba(240, 150, 40, 0.25)';
      octx.fillRect(ox(f.at), 0, Math.max(1, ox(f.end) - ox(f.at)), h);
    }
    octx.fillStyle = '#9fb0c4';
    for (let c = 0; c < density.length; c++) {
      if (density[c] > 0) octx.fillRect(c, h - 4 - density[c] * (h - 10), 1, density[c] * (h - 10));
    }
    octx.fillStyle = C.muted;
    octx.font = '11px system-ui, sans-serif';
    octx.textBaseline = 'middle';
    octx.fillText('whole run', 8, h / 2);
    if (R.verdict.at >= 0) {
      const vx = ox(T[R.verdict.at]);
      octx.fillStyle = C.violating;
      octx.beginPath();
      octx.moveTo(vx - 5, 0);
      octx.lineTo(vx + 5, 0);
      octx.lineTo(vx, 8);
      octx.closePath();
      octx.fill();
    }
    const a = ox(view.t0), b = ox(view.t1);
    octx.fillStyle = 'rgba(59, 111, 208, 0.12)';
    octx.fillRect(a, 0, Math.max(2, b - a), h);
    octx.strokeStyle = '#3b6fd0';
    octx.lineWidth = 1.5;
    octx.strokeRect(a, 0.75, Math.max(2, b - a), h - 1.5);
    if (cursor >= 0) {
      octx.fillStyle = C.cursor;
      octx.fillRect(ox(T[cursor]) - 0.5, 0, 1.5, h);
    }
  }

  // ---- moving ----

  function keepInView() {
    if (cursor < 0) return;
    const t = T[cursor], span = view.t1 - view.t0;
    const margin = span * 0.05;
    if (t < view.t0 + margin || t > view.t1 - margin) {
      view.t0 = t - span / 2;
      view.t1 = t + span / 2;
    }
  }

  function setCursor(i, recenter) {
    if (N === 0) return;
    cursor = Math.max(0, Math.min(N - 1, i));
    if (recenter) keepInView();
    updatePanel();
    draw();
  }

  // seek moves the cursor to the n-th event from it, in direction d, that
  // passes the filters and test.
  function seek(d, n, test) {
    let i = cursor, found = cursor;
    while (n > 0) {
      i += d;
      if (i < 0 || i >= N) break;
      if (shown(i) && (!test || test(i))) { found = i; n--; }
    }
    setCursor(found, true);
  }

  function nextFault(d) {
    if (!R.faults.length) return;
    const evs = R.faults.map((_, j) => faultEvent(j));
    let best = -1;
    if (d > 0) { for (const e of evs) if (e > cursor && (best < 0 || e < best)) best = e; }
    else { for (const e of evs) if (e < cursor && e > best) best = e; }
    if (best >= 0) setCursor(best, true);
  }

  function violationEvent() {
    if (R.verdict.at >= 0) return R.verdict.at;
    const vops = R.verdict.ops || [];
    if (vops.length) {
      const o = R.ops[vops[0]];
      if (o.ret >= 0) return o.ret;
      if (o.invoke >= 0) return o.invoke;
    }
    return -1;
  }

  function toViolation() {
    const v = violationEvent();
    if (v < 0) return;
    focus(v);
  }

  // focus puts the cursor on event c with the view around it: the events
  // near it, and the violating operation if it is c's.
  function focus(c) {
    cursor = c;
    let lo = T[Math.max(0, c - 60)], hi = T[Math.min(N - 1, c + 60)];
    const vops = R.verdict.ops || [];
    if (vops.length && violationEvent() === c) {
      const o = R.ops[vops[0]];
      lo = Math.min(lo, o.call);
      if (o.return >= 0) hi = Math.max(hi, o.return);
      // and the witnesses that are near: at most twice as far back again
      const span = hi - lo;
      for (const w of vops.slice(1)) {
        if (hi - R.ops[w].call <= 3 * span) lo = Math.min(lo, R.ops[w].call);
      }
    }
    if (hi - lo < 1e6) { lo -= 5e5; hi += 5e5; }
    const pad = (hi - lo) * 0.08;
    view = { t0: lo - pad, t1: hi + pad };
    updatePanel();
    draw();
  }

  function zoom(f, at) {
    const t = at === undefined ? (cursor >= 0 ? T[cursor] : (view.t0 + view.t1) / 2) : at;
    let span = (view.t1 - view.t0) * f;
    span = Math.max(1000, Math.min(span, (tMax - tMin) * 1.5));
    const r = (t - view.t0) / (view.t1 - view.t0);
    view = { t0: t - r * span, t1: t + (1 - r) * span };
    draw();
  }

  function fit() {
    const pad = (tMax - tMin) * 0.02;
    view = { t0: tMin - pad, t1: tMax + pad };
    draw();
  }

  $('prev').addEventListener('click', () => seek(-1, 1));
  $('next').addEventListener('click', () => seek(1, 1));
  $('prevFault').addEventListener('click', () => nextFault(-1));
  $('nextFault').addEventListener('click', () => nextFault(1));
  $('violation').addEventListener('click', toViolation);
  $('prevWho').addEventListener('click', () => seek(-1, 1, isOfWho));
  $('nextWho').addEventListener('click', () => seek(1, 1, isOfWho));
  $('zoomIn').addEventListener('click', () => zoom(0.5));
  $('zoomOut').addEventListener('click', () => zoom(2));
  $('fit').addEventListener('click', fit);
  if (violationEvent() < 0) $('violation').disabled = true;

  let lastStepMs = 0; // how long the last key took to handle, drawing included
  document.addEventListener('keydown', (e) => {
    const start = performance.now();
    onKey(e);
    lastStepMs = performance.now() - start;
  });
  function onKey(e) {
    if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) {
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      e.target.blur();
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const n = e.shiftKey ? 10 : 1;
    switch (e.key) {
      case 'ArrowRight': seek(1, n); break;
      case 'ArrowLeft': seek(-1, n); break;
      case 'f': nextFault(1); break;
      case 'F': nextFault(-1); break;
      case 'v': case 'V': toViolation(); break;
      case 'n': case 'N': seek(1, 1, isOfWho); break;
      case 'p': case 'P': seek(-1, 1, isOfWho); break;
      case '+': case '=': zoom(0.5); break;
      case '-': case '_': zoom(2); break;
      case '0': fit(); break;
      case 'Home': setCursor(0, true); break;
      case 'End': setCursor(N - 1, true); break;
      default: return;
    }
    e.preventDefault();
  }

  // the lanes: drag to pan, wheel to zoom, click to put the cursor on the
  // nearest event of the lane clicked
  let drag = null;
  lanes.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, t0: view.t0, t1: view.t1, moved: false }; });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const dx = e.clientX - lanes.getBoundingClientRect().left - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (!drag.moved) return;
    const dt = dx / (W - LABEL - RIGHT) * (drag.t1 - drag.t0);
    view = { t0: drag.t0 - dt, t1: drag.t1 - dt };
    draw();
  });
  window.addEventListener('mouseup', (e) => {
    if (drag && !drag.moved && e.target === lanes) pick(e.offsetX, e.offsetY);
    drag = null;
  });
  lanes.addEventListener('wheel', (e) => {
    e.preventDefault();
    zoom(e.deltaY > 0 ? 1.25 : 0.8, tAt(e.offsetX));
  }, { passive: false });

  function pick(px, py) {
    const t = tAt(px);
    let host = -1, client = -1;
    R.hosts.forEach((_, h) => { if (hostY[h] >= 0 && Math.abs(py - hostY[h]) <= hostH / 2) host = h; });
    R.clients.forEach((c) => { if (Math.abs(py - yClient(c)) <= clientH / 2) client = c; });
    const a = firstAtOrAfter(tAt(px - 40)), b = firstAtOrAfter(tAt(px + 40));
    let best = -1, bestD = Infinity;
    for (let i = a; i < b; i++) {
      if (!shown(i)) continue;
      if (host >= 0 && R.h[i] !== host) continue;
      if (client >= 0 && !(clientKinds.has(R.k[i]) && R.id[i] === client)) continue;
      const d = Math.abs(T[i] - t);
      if (d < bestD) { best = i; bestD = d; }
    }
    if (client >= 0) {
      const j = R.ops.findIndex((o) => o.client === client && o.call <= t && (o.return < 0 || t <= o.return));
      if (j >= 0) selectedOp = j;
    }
    if (best >= 0) setCursor(best, false);
  }

  // the overview: click or drag to move the view there
  let odrag = false;
  const overviewTo = (e) => {
    const w = over.clientWidth;
    const t = tMin + (e.offsetX - LABEL) / (w - LABEL - RIGHT) * (tMax - tMin);
    const span = view.t1 - view.t0;
    view = { t0: t - span / 2, t1: t + span / 2 };
    draw();
  };
  over.addEventListener('mousedown', (e) => { odrag = true; overviewTo(e); });
  over.addEventListener('mousemove', (e) => { if (odrag) overviewTo(e); });
  window.addEventListener('mouseup', () => { odrag = false; });

  window.addEventListener('resize', () => { layout(); draw(); });

  // the legend
  (function legend() {
    const items = [
      ['request', C.request], ['reply', C.reply], ['duplicate (dashed)', C.dup], ['lost (×)', C.lost],
      ['fault in force', 'rgba(240, 150, 40, 0.45)'], ['host down', C.down],
      ['operation', C.op], ['violating operation', C.violating], ['witness', C.witness],
    ];
    const lg = $('legend');
    for (const [label, color] of items) {
      const s = document.createElement('span');
      s.className = 'key';
      const i = document.createElement('i');
      i.style.background = color;
      s.appendChild(i);
      s.appendChild(document.createTextNode(label));
      lg.appendChild(s);
    }
  })();

  // ---- open on the violation, or at the start ----

  layout();
  if (violationEvent() >= 0) focus(violationEvent());
  else if (N) focus(0);
  else { updatePanel(); draw(); }
  // for tests and measurements: the time from navigation to the viewer
  // drawn, and the last key's
  window.runView = {
    readyAt: performance.now(),
    get lastStepMs() { return lastStepMs; },
    get cursor() { return cursor; },
    get view() { return { t0: view.t0, t1: view.t1 }; },
  };
})();
