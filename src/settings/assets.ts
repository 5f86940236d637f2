import { createHash } from 'node:crypto';

/**
 * The settings page's one style sheet and one script, served from memory under a name carrying
 * their hash (cached for a year, never stale). No build step: they are plain CSS and JavaScript.
 * The script only enhances: every page works without it.
 */
const CSS = `
:root{--page:72rem;--gutter:max(1rem,calc((100% - var(--page))/2 + 1rem));color-scheme:light;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0b57d0;--danger:#b3261e;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid #f9a825;outline-offset:2px}
.vh{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:2}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem var(--gutter);border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700;text-decoration:none;color:var(--fg)}
header.top .who{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;color:var(--muted);font-size:.9rem}
nav.tabs ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:.5rem calc(var(--gutter) - .75rem);border-bottom:1px solid var(--line)}
nav.tabs a{display:inline-block;padding:.4rem .75rem;border-radius:6px;text-decoration:none}
nav.tabs a[aria-current=page]{background:var(--accent);color:#fff}nav.tabs li.end{margin-left:auto}
main{max-width:var(--page);margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .75rem}
form.stack{display:grid;gap:.75rem;max-width:32rem}
fieldset{border:1px solid var(--line);border-radius:8px;padding:.75rem;margin:0}
legend{font-weight:600;padding:0 .25rem}
label{display:block;font-weight:600}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
label.check input{margin-top:.3rem;width:1.1rem;height:1.1rem;flex:none}
.hint{display:block;color:var(--muted);font-size:.9rem;font-weight:400}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=number],input[type=date],textarea,select{width:100%;max-width:100%;font:inherit;padding:.45rem .5rem;border:1px solid #8c959f;border-radius:6px;background:#fff}
button,.button{font:inherit;padding:.45rem .9rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--danger);border-color:var(--danger)}
.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.5rem}
.notice{padding:.75rem 1rem;border-radius:8px;border:1px solid var(--line);background:var(--soft);margin:0 0 1rem}
.notice>:first-child{margin-top:0}.notice>:last-child{margin-bottom:0}
.notice.error{border-color:var(--danger);background:#fff5f5}
.notice.ok{border-color:var(--ok);background:#f0fff4}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret code{flex:1 1 16rem;overflow-wrap:anywhere;background:#fff;border:1px dashed #8c959f;padding:.5rem;border-radius:6px;font-size:.95rem}
ul.cards{list-style:none;margin:0;padding:0;display:grid;gap:.75rem}
ul.cards>li{border:1px solid var(--line);border-radius:8px;padding:.75rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.5rem 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;font-size:.8rem;padding:0 .45rem;border-radius:999px;border:1px solid var(--line);background:var(--soft)}
.badge.bad{border-color:var(--danger);color:var(--danger)}.badge.good{border-color:var(--ok);color:var(--ok)}
.card-title{font-weight:600;overflow-wrap:anywhere}
.pager{display:flex;gap:1rem;margin-top:1rem}
.actions form.apart{margin-left:auto}
input[type=file]{font:inherit;max-width:100%}
progress{width:100%;max-width:32rem;height:1.25rem}
.scroll{overflow-x:auto;max-width:100%}
table.rows{border-collapse:collapse;font-size:.9rem;min-width:100%}
table.rows th,table.rows td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
table.rows th{background:var(--soft);white-space:nowrap}
table.rows td{overflow-wrap:break-word}
form.stack.after{margin-top:1rem}
form.stack.wide{max-width:48rem}
.two{display:grid;grid-template-columns:1fr 1fr;gap:.75rem}
.groups{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:1rem;align-items:start}
.groups fieldset{display:grid;gap:.75rem}
form.stack.wide:has(.groups){max-width:none}
.field-error{display:block;color:var(--danger);font-size:.9rem;font-weight:600;margin-top:.25rem}
input[aria-invalid=true]{border-color:var(--danger);box-shadow:0 0 0 1px var(--danger)}
.warning{color:#8a4b00}
input.rate{width:7rem}
table.members td.flag{text-align:center}table.members td.flag label.check{justify-content:center}
table.members td{vertical-align:middle}table.members td:first-child{min-width:15rem}
.wide-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap}
.row-actions{display:flex;flex-wrap:nowrap;gap:.5rem;align-items:center;justify-content:flex-end}.row-actions button{white-space:nowrap}
.row-actions form.apart{margin-left:.75rem;padding-left:.75rem;border-left:1px solid var(--line)}
ul.refused{margin:.5rem 0;padding-left:1.25rem}ul.refused li{margin:.2rem 0;overflow-wrap:anywhere}
@media (max-width:40rem){nav.tabs li.end{margin-left:0}table.rows thead{display:none}table.rows tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}table.rows td{display:block;position:relative;border:0;padding:.1rem 0 .1rem 7rem;min-height:1.6em}table.rows td::before{content:attr(data-label);color:var(--muted);position:absolute;left:0;top:.1rem;width:6.5rem}
table.members tr{padding:.75rem 0}table.members td.flag{display:block;text-align:left;padding:.2rem 0}table.rows td.flag::before,table.rows td.actions-cell::before,table.members td:first-child::before{content:none}table.rows td.flag,table.rows td.actions-cell,table.members td:first-child{padding-left:0}table.members td.flag label.check{justify-content:flex-start}
.wide-hidden{position:static;width:auto;height:auto;overflow:visible;clip:auto;white-space:normal}
table.rows td.actions-cell{display:block;padding-top:.5rem}table.rows td.actions-cell:empty{display:none}.row-actions{flex-wrap:wrap;justify-content:flex-start}.row-actions form.apart{margin-left:auto;border-left:0;padding-left:0}
.two{grid-template-columns:1fr}}
@media (max-width:30rem){dl.facts:not(.compact){grid-template-columns:1fr}dl.facts:not(.compact) dt{margin-top:.35rem}main{padding:.75rem}}
`;

const JS = `
'use strict';
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
  } catch (e) {}
});
document.querySelectorAll('time[data-local]').forEach(function (t) {
  var d = new Date(t.getAttribute('datetime'));
  if (isNaN(d.getTime())) return;
  var p = function (n) { return String(n).padStart(2, '0'); };
  t.textContent = d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
});
document.querySelectorAll('input[data-all-events]').forEach(function (all) {
  var others = Array.prototype.filter.call(all.form.querySelectorAll('input[name=events]'), function (i) { return i !== all; });
  all.addEventListener('change', function () { others.forEach(function (i) { i.checked = all.checked; }); });
  others.forEach(function (i) { i.addEventListener('change', function () { all.checked = others.every(function (o) { return o.checked; }); }); });
});
document.querySelectorAll('form[data-confirm]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
  });
});
`;

const named = (body: string, ext: string) => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `settings.${hash}.${ext}`, body };
};

/** The tab icon (a clock face), so a browser does not ask the API for /favicon.ico. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#0b57d0"/><path d="M16 8v8l6 4" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round"/></svg>';

export const STYLE = named(CSS.trim(), 'css');
export const FAVICON = named(ICON, 'svg');
export const SCRIPT = named(JS.trim(), 'js');
