// The pages' one script (src/web/kit/assets.ts serves it under a hashed name). It only enhances:
// every page and form works without it.
'use strict';
// Copy buttons, the browser's zone in zone fields, local times, "all events".
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(target.textContent.trim()).then(function () {
      button.textContent = 'Copied';
      var status = document.getElementById(button.getAttribute('data-copy') + '-status');
      if (status) status.textContent = 'Copied to the clipboard.';
    });
  });
});
document.querySelectorAll('input[data-browser-zone]').forEach(function (input) {
  try {
    if (!input.value) input.value = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  } catch {
    // An old browser without time zone support: the field stays empty for the person to fill.
  }
});
document.querySelectorAll('time[data-local]').forEach(function (t) {
  var d = new Date(t.getAttribute('datetime'));
  if (isNaN(d.getTime())) return;
  var p = function (n) {
    return String(n).padStart(2, '0');
  };
  t.textContent =
    d.getFullYear() +
    '-' +
    p(d.getMonth() + 1) +
    '-' +
    p(d.getDate()) +
    ' ' +
    p(d.getHours()) +
    ':' +
    p(d.getMinutes()) +
    ':' +
    p(d.getSeconds());
});
document.querySelectorAll('input[data-all-events]').forEach(function (all) {
  var others = Array.prototype.filter.call(all.form.querySelectorAll('input[name=events]'), function (i) {
    return i !== all;
  });
  all.addEventListener('change', function () {
    others.forEach(function (i) {
      i.checked = all.checked;
    });
  });
  others.forEach(function (i) {
    i.addEventListener('change', function () {
      all.checked = others.every(function (o) {
        return o.checked;
      });
    });
  });
});
// The web app: the ticking timer, the Billable default of a chosen project, the browser's zone,
// shortcuts, confirmations, live updates.
(function () {
  var pad = function (n) {
    return String(n).padStart(2, '0');
  };
  // Running times tick (the timer's and its row's in the week); the page title shows the timer: `0:42 · Audit kickoff · timetrack`.
  function tick() {
    document.querySelectorAll('time[data-elapsed-from]').forEach(function (t) {
      var s = Math.max(0, Math.floor((Date.now() - Date.parse(t.getAttribute('data-elapsed-from'))) / 1000));
      t.textContent = Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
      if (t.hasAttribute('data-title')) {
        document.title =
          Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ' · ' + t.getAttribute('data-title') + ' · timetrack';
      }
    });
  }
  setInterval(tick, 1000);
  // A one-time welcome in the address (`?welcome=1`) is dropped from it, so a reload or a bookmark does not show it again.
  // (Not while the page is about to reload itself with the browser's zone: the reload shows it.)
  var reloading = document.body.getAttribute('data-ask-zone') === 'true';
  if (!reloading && /[?&]welcome=1\b/.test(location.search) && window.history && history.replaceState) {
    history.replaceState(
      null,
      '',
      location.pathname + location.search.replace(/([?&])welcome=1&?/, '$1').replace(/[?&]$/, '') + location.hash,
    );
  }
  // After a refused form: the first refused field, focused (its message is tied to it).
  var refused = document.querySelector('[aria-invalid=true]');
  if (refused) refused.focus();
  function wire(root) {
    root.querySelectorAll('form[data-confirm]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
      });
    });
  }
  wire(document);
  // A project chosen: its Billable default shows in the form's checkbox at once (and the form says whose default it shows).
  document.addEventListener('change', function (event) {
    var select = event.target;
    if (!select || select.name !== 'projectId' || !select.form) return;
    var box = select.form.querySelector('input[data-billable-box]');
    var shown = select.form.querySelector('input[name=billableFor]');
    var option = select.options[select.selectedIndex];
    if (!box || !shown || !option) return;
    box.checked = option.getAttribute('data-billable') === 'true';
    shown.value = select.value;
  });
  // The browser's zone, told once (the member can change it later).
  var body = document.body;
  if (body.getAttribute('data-ask-zone') === 'true') {
    try {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      var form = new FormData();
      form.append('_csrf', body.getAttribute('data-csrf'));
      form.append('timeZone', zone);
      fetch(body.getAttribute('data-app') + '/preferences/zone', {
        method: 'POST',
        body: new URLSearchParams(form),
        credentials: 'same-origin',
      }).then(function (r) {
        if (r.ok) location.reload();
      });
    } catch {
      // No zone from the browser: the member chooses one on the Profile page.
    }
  }
  // s starts or stops the timer (not while typing).
  document.addEventListener('keydown', function (event) {
    if (event.key !== 's' || event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (document.activeElement && document.activeElement.tagName) || '';
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag)) return;
    var button = document.querySelector('button[data-shortcut=timer]');
    if (button) {
      event.preventDefault();
      button.form.requestSubmit(button);
    }
  });
  // Live: a change anywhere reads this page again and swaps its region, unless the person is typing in it.
  var region = document.getElementById('live-region');
  var status = document.getElementById('live-status');
  if (!region || !window.EventSource) return;
  var pending = false;
  function busy() {
    var a = document.activeElement;
    return (a && region.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName)) || region.querySelector('details[open]');
  }
  function refresh() {
    if (busy()) {
      pending = true;
      return;
    }
    pending = false;
    fetch(location.href, { credentials: 'same-origin', headers: { 'X-Live': '1' } })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (text) {
        if (text === null) return;
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live-region');
        if (!next || busy()) {
          pending = true;
          return;
        }
        region.replaceWith(next);
        region = next;
        wire(region);
        tick();
      });
  }
  document.addEventListener('focusout', function () {
    setTimeout(function () {
      if (pending) refresh();
    }, 0);
  });
  document.addEventListener(
    'toggle',
    function () {
      if (pending) refresh();
    },
    true,
  );
  var source = new EventSource(document.body.getAttribute('data-app') + '/events');
  source.addEventListener('change', refresh);
  source.addEventListener('resync', refresh);
  source.addEventListener('open', function () {
    if (status) status.textContent = 'Live';
  });
  source.addEventListener('error', function () {
    if (status) status.textContent = source.readyState === 2 ? 'Live updates are off: reload the page' : 'Reconnecting…';
  });
})();
