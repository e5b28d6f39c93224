// Lestrade dashboard: live updates from /ui/events and the actions on an investigation page.
// No framework: the pages are rendered on the server; this swaps the #live region for a fresh
// copy of the same page when a record changes, and posts actions to the JSON API with the
// session's CSRF token. Served from this origin; the Content-Security-Policy forbids inline script.
'use strict';

(function () {
  const body = document.body;
  const page = body.dataset.page;
  const pageId = body.dataset.id;
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? '';
  const state = document.getElementById('live-state');

  // The browser's own time, with its zone named ("14:03:09 CET"); the server's UTC text stays as the tooltip.
  const LOCAL_TIME = {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  };
  function localTimes(root) {
    for (const t of root.querySelectorAll('time[datetime]')) {
      const d = new Date(t.getAttribute('datetime'));
      if (!Number.isNaN(d.getTime())) {
        t.title = t.textContent;
        t.textContent = d.toLocaleString(undefined, LOCAL_TIME);
      }
    }
  }

  // At most one refresh a second, however many records change (an alert storm), one at a time.
  let timer = null;
  let last = 0;
  let pending = false;
  function schedule() {
    // A change during a refresh may have come too late for it: one more follows.
    if (timer) {
      pending = true;
      return;
    }
    timer = setTimeout(
      async () => {
        last = Date.now();
        try {
          await refresh();
        } finally {
          timer = null;
          if (pending) {
            pending = false;
            schedule();
          }
        }
      },
      Math.max(0, last + 1000 - Date.now()),
    );
  }

  async function refresh() {
    try {
      const res = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = doc.getElementById('live');
      const live = document.getElementById('live');
      if (!fresh || !live) return;
      const keyOf = (d) => `${d.closest('li')?.className}|${d.querySelector('summary')?.textContent}`;
      const open = new Set([...live.querySelectorAll('details[open]')].map(keyOf));
      // A reason being typed into an approval form is not thrown away by a refresh.
      const typing = document.activeElement;
      if (live.contains(typing) && typing.tagName === 'TEXTAREA') {
        setTimeout(schedule, 1000);
        return;
      }
      live.replaceWith(fresh);
      for (const d of fresh.querySelectorAll('details')) {
        if (open.has(keyOf(d))) d.open = true;
      }
      localTimes(fresh);
      bindActions(fresh);
      const ask = document.querySelector('form.ask');
      const askable = doc.querySelector('form.ask textarea');
      if (ask && askable) {
        for (const el of ask.querySelectorAll('textarea, button')) el.disabled = askable.disabled;
        const hint = ask.querySelector('.hint');
        if (hint) hint.hidden = !askable.disabled;
      }
    } catch {
      if (state) state.textContent = 'update failed; retrying';
      setTimeout(schedule, 1000);
    }
  }

  function listen() {
    if (!('EventSource' in window) || (page !== 'list' && page !== 'detail')) return;
    const events = new EventSource('/ui/events');
    events.onopen = () => {
      if (state) state.textContent = 'live';
    };
    events.onerror = () => {
      if (state) state.textContent = 'reconnecting…';
    };
    events.addEventListener('change', (e) => {
      if (page === 'list' || e.data === pageId || e.data === '*') schedule();
    });
  }

  async function post(url, payload) {
    const res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(payload),
    });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { ok: res.ok, status: res.status, body: json };
  }

  function payloadOf(form, submitter) {
    const action = form.dataset.action;
    if (action === 'approval') {
      const feedback = form.querySelector('textarea[name="feedback"]')?.value.trim();
      const decision = { toolCallId: form.dataset.toolCallId, approved: submitter?.value === 'approve' };
      if (feedback) decision.feedback = feedback;
      return { decisions: [decision] };
    }
    if (action === 'ask') return { question: form.querySelector('textarea[name="question"]').value };
    if (action === 'feedback') {
      const payload = { verdict: submitter?.value };
      for (const name of ['rootCause', 'note']) {
        const text = form.querySelector(`textarea[name="${name}"]`)?.value.trim();
        if (text) payload[name] = text;
      }
      return payload;
    }
    return {};
  }

  function bindActions(root) {
    for (const form of root.querySelectorAll('form.action')) {
      if (form.dataset.bound) continue;
      form.dataset.bound = '1';
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const buttons = form.querySelectorAll('button');
        for (const b of buttons) b.disabled = true;
        const result = await post(form.dataset.url, payloadOf(form, e.submitter));
        const out = form.querySelector('.result');
        const message = result.ok ? sentText(result.body) : (result.body?.error ?? `failed (${result.status})`);
        if (out) out.textContent = message;
        else if (!result.ok) alertInline(form, message);
        if (result.ok && form.dataset.action === 'ask') form.querySelector('textarea').value = '';
        for (const b of buttons) b.disabled = false;
        schedule();
      });
    }
  }

  /** What a successful action says: a verdict that was already recorded says so. */
  function sentText(body) {
    return body && body.changed === false ? 'Unchanged: you had already said so.' : 'Sent.';
  }

  function alertInline(form, message) {
    const p = document.createElement('p');
    p.className = 'error';
    p.textContent = message;
    form.append(p);
  }

  localTimes(document);
  bindActions(document);
  listen();
})();
