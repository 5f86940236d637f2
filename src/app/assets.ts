import { createHash } from 'node:crypto';

/**
 * The web app's own style sheet and script (beside the settings page's, which it also loads):
 * plain CSS and JavaScript, no build step, served from memory under hashed names. The script
 * enhances (the ticking timer, live updates, the browser's zone, the s shortcut, confirmations);
 * every form works without it.
 */
const CSS = `
.timer{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;padding:.75rem;border:1px solid var(--line);border-radius:8px;background:var(--soft);margin:0 0 1rem}
.timer form{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:0}
.timer .field{flex:1 1 14rem}.timer select{min-width:10rem}
.timer.running{border-color:var(--ok)}
.timer .elapsed{font-size:1.6rem;font-variant-numeric:tabular-nums;margin:0;font-weight:700}
button.stop{background:var(--danger);border-color:var(--danger)}
.week-head{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:baseline;justify-content:space-between}
.week-head h1{margin:.25rem 0}
.week-nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.week-nav input[type=date]{width:auto}
.total{margin:.25rem 0;flex-basis:100%}
section.day{margin:1rem 0}
section.day h2{display:flex;justify-content:space-between;border-bottom:2px solid var(--line);padding-bottom:.25rem;font-size:1.05rem}
.day-total{font-variant-numeric:tabular-nums}
ul.entries{list-style:none;margin:0;padding:0}
ul.entries>li{border-bottom:1px solid var(--line)}
.entry .row{display:grid;grid-template-columns:7.5rem 1fr minmax(6rem,14rem) 5.5rem;gap:.5rem;padding:.45rem .25rem;align-items:baseline;cursor:pointer}
.entry.locked .row,.entry.live .row{cursor:default}
.entry a.row{color:inherit;text-decoration:none}.entry a.row:hover,.entry a.row:focus-visible{background:var(--soft)}
.entry summary{list-style:none}.entry summary::-webkit-details-marker{display:none}
.entry summary:hover{background:var(--soft)}
.entry .when,.entry .duration{font-variant-numeric:tabular-nums}.entry .duration{text-align:right}
.entry .what{overflow-wrap:anywhere}
.entry .project{color:var(--muted);overflow-wrap:anywhere}
.entry.live{background:#f0fff4}
.entry form.edit{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(13rem,100%),1fr));gap:.5rem .75rem;padding:.5rem .25rem;align-items:end}
.entry form.apart{padding:0 .25rem .75rem;text-align:right}
.field label{font-weight:600}
.field input{width:100%;max-width:100%;font:inherit;padding:.45rem .5rem;border:1px solid #8c959f;border-radius:6px;background:#fff}
.timer button .hint,.timer button kbd{display:inline;color:inherit;opacity:.85;font-size:.85rem}
form.add{margin-top:2rem;border-top:2px solid var(--line)}
form.add .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(11rem,100%),1fr));gap:.5rem .75rem}
.dot{display:inline-block;width:.6rem;height:.6rem;margin-right:.35rem;vertical-align:baseline}
.live-status{font-size:.85rem;color:var(--muted)}
.whose{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;flex-basis:100%}.whose select{width:auto;max-width:100%}
select[multiple]{min-height:2.6rem}
section.catalog{margin:1.5rem 0 2rem}
form.add-item{margin-top:.75rem;padding:.75rem;border:1px dashed var(--line);border-radius:8px}
form.add-item .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(11rem,100%),1fr));gap:.5rem .75rem;align-items:end}
form.add-item .check,form.edit .check{grid-column:1/-1}
.new-label{margin:0 0 .25rem;font-weight:600;color:var(--muted)}
.field input[type=color]{height:2.45rem;padding:.15rem .25rem}
.entry.item .row{grid-template-columns:minmax(8rem,16rem) 1fr auto}
.swatch{display:inline-block;width:.7rem;height:.7rem;vertical-align:middle}
meter{width:5rem;vertical-align:middle}
@media (max-width:40rem){.entry .row{grid-template-columns:1fr auto;grid-template-areas:"when duration" "what what" "project project"}.entry .when{grid-area:when}.entry .duration{grid-area:duration}.entry .what{grid-area:what}.entry .project{grid-area:project}.entry.item .row{grid-template-areas:"what what" "project project"}}
@media (max-width:40rem){.entry .row{grid-template-columns:1fr auto;grid-template-areas:"when duration" "what what" "project project"}.entry .when{grid-area:when}.entry .duration{grid-area:duration}.entry .what{grid-area:what}.entry .project{grid-area:project}}
/* Reports */
.report-head{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:baseline}.report-head h1{margin:.25rem 0}
.report-form .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(10.5rem,100%),1fr));gap:.5rem .75rem;align-items:start}
.report-form select,.report-form input{width:100%;max-width:100%}
.report-form .actions{margin-top:.5rem}
nav.ranges ul{display:flex;flex-wrap:wrap;gap:.25rem .5rem;list-style:none;margin:.75rem 0 0;padding:0}
nav.ranges a{display:inline-block;padding:.2rem .6rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:.9rem}
nav.ranges a[aria-current]{background:var(--accent);border-color:var(--accent);color:#fff}
ul.report-totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(9rem,100%),1fr));gap:.5rem;list-style:none;margin:0;padding:0}
ul.report-totals li{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem;background:var(--soft)}
ul.report-totals strong{display:block;font-size:1.35rem;font-variant-numeric:tabular-nums}
figure.chart{margin:0}
svg.chart{display:block;height:auto;max-width:100%}svg.chart.narrow{display:none}
svg.chart .grid{stroke:var(--line);stroke-width:1}
svg.chart .axis{fill:var(--muted);font-size:13px;font-family:inherit}
svg.chart.narrow .axis{font-size:15px}
svg.chart .col{fill:var(--accent)}
svg.chart .hit{fill:transparent}
svg.chart .bar:hover .col{fill:#0842a0}
figure.chart details{margin-top:.5rem}
table.rows .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.rows .c-time{font-variant-numeric:tabular-nums;white-space:nowrap}
table.summary,table.detailed{width:100%}
table.summary tbody th{background:none;font-weight:600;white-space:normal}
table.summary tr.sub th{font-weight:400;padding-left:1.75rem}
table.summary tbody+tbody{border-top:2px solid var(--line)}
.hint.inline{display:inline}
p.more,nav.more{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin-top:.75rem}
nav.more p{margin:0}
table.summary tr.others th{font-style:italic;color:var(--muted)}
@media (max-width:40rem){
svg.chart.wide{display:none}svg.chart.narrow{display:block}
table.summary tr,table.detailed tr{display:flex;flex-wrap:wrap;gap:0 1rem;padding:.5rem 0}
table.summary tr.sub{padding-left:1rem}
table.summary th[data-label]{display:block;flex-basis:100%;padding:0;border:0;overflow-wrap:anywhere}
table.summary tr.sub th{padding-left:0}
table.summary td,table.detailed td{position:static;padding:0;min-height:0}table.summary td.num{text-align:left}
table.summary td::before{position:static;display:block;width:auto;font-size:.8rem}
table.detailed td::before{content:none}
table.detailed .c-date{order:1}table.detailed .c-time{order:2}table.detailed .c-duration{order:3;margin-left:auto;font-weight:600}table.detailed .c-amount{order:4}
table.detailed .c-what,table.detailed .c-member,table.detailed .c-project,table.detailed .c-tags{order:5;flex-basis:100%;overflow-wrap:anywhere}
table.detailed .c-member,table.detailed .c-project,table.detailed .c-tags{color:var(--muted);font-size:.9rem}
table.detailed td:empty{display:none}
}
`;

const JS = `
'use strict';
(function () {
  var pad = function (n) { return String(n).padStart(2, '0'); };
  function tick() {
    document.querySelectorAll('time[data-elapsed-from]').forEach(function (t) {
      var s = Math.max(0, Math.floor((Date.now() - Date.parse(t.getAttribute('data-elapsed-from'))) / 1000));
      t.textContent = Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
    });
  }
  setInterval(tick, 1000);
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
      fetch('/app/preferences/zone', { method: 'POST', body: new URLSearchParams(form), credentials: 'same-origin' }).then(function (r) {
        if (r.ok) location.reload();
      });
    } catch (e) {}
  }
  // s starts or stops the timer (not while typing).
  document.addEventListener('keydown', function (event) {
    if (event.key !== 's' || event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (document.activeElement && document.activeElement.tagName) || '';
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag)) return;
    var button = document.querySelector('button[data-shortcut=timer]');
    if (button) { event.preventDefault(); button.form.requestSubmit(button); }
  });
  // Live: a change anywhere reads this page again and swaps its region, unless the person is typing in it.
  var region = document.getElementById('live-region');
  var status = document.getElementById('live-status');
  if (!region || !window.EventSource) return;
  var pending = false;
  function busy() {
    var a = document.activeElement;
    return a && region.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName) || region.querySelector('details[open]');
  }
  function refresh() {
    if (busy()) { pending = true; return; }
    pending = false;
    fetch(location.href, { credentials: 'same-origin', headers: { 'X-Live': '1' } }).then(function (r) { return r.ok ? r.text() : null; }).then(function (text) {
      if (text === null) return;
      var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live-region');
      if (!next || busy()) { pending = true; return; }
      region.replaceWith(next);
      region = next;
      wire(region);
      tick();
    });
  }
  document.addEventListener('focusout', function () { setTimeout(function () { if (pending) refresh(); }, 0); });
  document.addEventListener('toggle', function () { if (pending) refresh(); }, true);
  var source = new EventSource('/app/events');
  source.addEventListener('change', refresh);
  source.addEventListener('resync', refresh);
  source.addEventListener('open', function () { if (status) status.textContent = 'Live'; });
  source.addEventListener('error', function () {
    if (status) status.textContent = source.readyState === 2 ? 'Live updates are off: reload the page' : 'Reconnecting…';
  });
})();
`;

const named = (body: string, ext: string) => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `app.${hash}.${ext}`, body };
};

export const APP_STYLE = named(CSS.trim(), 'css');
export const APP_SCRIPT = named(JS.trim(), 'js');
