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
  // The day as the page writes days: ISO in English, else the language's own way (02.11.2026).
  var lang = document.documentElement.lang || 'en';
  var day =
    lang === 'en'
      ? d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate())
      : new Intl.DateTimeFormat(lang, { day: '2-digit', month: '2-digit', year: 'numeric' }).format(d);
  t.textContent = day + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
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
// The web app: the ticking timer, the pickers (Billable default, project filter, tag chips),
// suggestions while typing, in-place forms with a short confirmation and Undo, shortcuts, the
// browser's zone, live updates. Every form works without this script.
(function () {
  var body = document.body;
  var app = body.getAttribute('data-app') || '/app';
  var pad = function (n) {
    return String(n).padStart(2, '0');
  };
  var typing = function () {
    var a = document.activeElement;
    return a && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName);
  };
  // Running times tick (the timer's and its row's in the week); the page title shows the timer: `0:42 · Audit kickoff · timetrack`.
  function tick() {
    document.querySelectorAll('time[data-elapsed-from]').forEach(function (t) {
      var s = Math.max(0, Math.floor((Date.now() - Date.parse(t.getAttribute('data-elapsed-from'))) / 1000));
      var long = t.closest('.timer') !== null;
      t.textContent = Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + (long ? ':' + pad(s % 60) : '');
      if (t.hasAttribute('data-title')) {
        document.title =
          Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ' · ' + t.getAttribute('data-title') + ' · timetrack';
      }
    });
  }
  setInterval(tick, 1000);
  // A one-time welcome in the address (`?welcome=1`) is dropped from it, so a reload or a bookmark does not show it again.
  // (Not while the page is about to reload itself with the browser's zone: the reload shows it.)
  var reloading = body.getAttribute('data-ask-zone') === 'true';
  if (!reloading && /[?&]welcome=1\b/.test(location.search) && window.history && history.replaceState) {
    history.replaceState(
      null,
      '',
      location.pathname + location.search.replace(/([?&])welcome=1&?/, '$1').replace(/[?&]$/, '') + location.hash,
    );
  }
  var announcer = document.createElement('div');
  announcer.className = 'vh';
  announcer.setAttribute('role', 'status');
  body.appendChild(announcer);
  var announce = function (text) {
    announcer.textContent = text;
  };

  // --- Pickers ---------------------------------------------------------------------------------
  // A project chosen: its Billable default shows in the form's checkbox at once (and the form says
  // whose default it shows); a task of another project is dropped.
  function projectChosen(select) {
    var form = select.form;
    var box = form.querySelector('input[data-billable-box]');
    var shown = form.querySelector('input[name=billableFor]');
    var option = select.options[select.selectedIndex];
    tasksFollow(form);
    if (!box || !shown || !option) return;
    box.checked = option.getAttribute('data-billable') === 'true';
    shown.value = select.value;
  }
  // The task picker offers the chosen project's tasks only (a task of another project is dropped),
  // and is hidden when that project has none.
  function tasksFollow(form) {
    var project = form.querySelector('select[name=projectId]');
    var task = form.querySelector('select[name=taskId]');
    if (!project || !task) return;
    var any = false;
    task.querySelectorAll('option[data-project]').forEach(function (option) {
      var mine = option.getAttribute('data-project') === project.value;
      option.hidden = !mine;
      option.disabled = !mine;
      if (mine) any = true;
    });
    task.querySelectorAll('optgroup').forEach(function (group) {
      group.hidden = group.getAttribute('data-project') !== project.value;
    });
    var chosen = task.options[task.selectedIndex];
    if (chosen && chosen.value !== '' && chosen.getAttribute('data-project') !== project.value) task.value = '';
    var field = task.closest('[data-task-picker]');
    if (field) field.hidden = !any;
  }
  document.addEventListener('change', function (event) {
    var select = event.target;
    if (select && select.name === 'projectId' && select.form) projectChosen(select);
    if (select && select.name === 'tagIds') tagSummary(select.closest('details[data-tags]'));
  });
  // The projects' filter: typing narrows the list (clients' groups with no match hide).
  function filterProjects(input) {
    var select = document.getElementById(input.getAttribute('data-filter-for'));
    if (!select) return;
    var text = input.value.trim().toLowerCase();
    var first = null;
    select.querySelectorAll('option').forEach(function (option) {
      var group = option.parentElement.tagName === 'OPTGROUP' ? option.parentElement.label.toLowerCase() : '';
      var show = option.value === '' || text === '' || (option.textContent + ' ' + group).toLowerCase().indexOf(text) >= 0;
      option.hidden = !show;
      if (show && option.value !== '' && first === null) first = option;
    });
    select.querySelectorAll('optgroup').forEach(function (group) {
      group.hidden = !group.querySelector('option:not([hidden])');
    });
    return first;
  }
  // The tags' summary names the chosen ones.
  function tagSummary(details) {
    if (!details) return;
    var names = Array.prototype.map.call(details.querySelectorAll('input[name=tagIds]:checked'), function (input) {
      return input.nextElementSibling ? input.nextElementSibling.textContent : '';
    });
    var summary = details.querySelector('summary');
    summary.textContent = names.length > 0 ? 'Tags: ' + names.join(', ') : 'Tags';
  }
  function filterTags(input) {
    var text = input.value.trim().toLowerCase();
    input
      .closest('fieldset')
      .querySelectorAll('label.chip')
      .forEach(function (chip) {
        chip.hidden = text !== '' && chip.textContent.toLowerCase().indexOf(text) < 0;
      });
  }
  // Enter in the tags' filter: the one match is ticked, or a new tag is made (the catalog's rules and words).
  function tagEnter(input) {
    var name = input.value.trim();
    if (name === '') return;
    var fieldset = input.closest('fieldset');
    var visible = Array.prototype.filter.call(fieldset.querySelectorAll('label.chip'), function (chip) {
      return !chip.hidden;
    });
    var exact = visible.filter(function (chip) {
      return chip.textContent.trim().toLowerCase() === name.toLowerCase();
    });
    var pick = exact[0] || (visible.length === 1 ? visible[0] : null);
    if (pick) {
      pick.querySelector('input').checked = true;
      done();
      return;
    }
    var form = new URLSearchParams();
    form.append('_csrf', body.getAttribute('data-csrf'));
    form.append('name', name);
    fetch(app + '/tags', { method: 'POST', body: form, credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) {
        return r.json().then(function (json) {
          return { ok: r.ok, json: json };
        });
      })
      .then(function (answer) {
        if (!answer.ok) {
          input.setCustomValidity(answer.json.error || 'That tag could not be made.');
          input.reportValidity();
          return;
        }
        var label = document.createElement('label');
        label.className = 'chip';
        var box = document.createElement('input');
        box.type = 'checkbox';
        box.name = 'tagIds';
        box.value = answer.json.data.id;
        box.checked = true;
        var span = document.createElement('span');
        span.textContent = answer.json.data.name;
        label.appendChild(box);
        label.appendChild(span);
        fieldset.appendChild(label);
        var none = fieldset.querySelector('.none');
        if (none) none.remove();
        announce('Tag ' + answer.json.data.name + ' made and chosen.');
        done();
      });
    function done() {
      input.value = '';
      input.setCustomValidity('');
      filterTags(input);
      tagSummary(fieldset.closest('details[data-tags]'));
    }
  }

  // --- Suggestions while typing a description (a combobox) -------------------------------------
  var suggestTimer = null;
  // The field's words in the page's language (its data-words, rendered by the page): a message by
  // name, its {{placeholders}} filled; `count` picks the `_one` or `_other` form.
  function say(input, name, vars) {
    var words;
    try {
      words = JSON.parse(input.getAttribute('data-words') || '{}');
    } catch {
      words = {};
    }
    var counted = vars && typeof vars.count === 'number' ? name + (vars.count === 1 ? '_one' : '_other') : name;
    var text = words[counted] || words[name] || '';
    return text.replace(/\{\{\s*(\w+)\s*\}\}/g, function (whole, key) {
      return vars && vars[key] !== undefined ? String(vars[key]) : whole;
    });
  }
  function listOf(input) {
    return document.getElementById(input.getAttribute('aria-controls'));
  }
  function closeList(input) {
    var list = listOf(input);
    if (!list) return;
    list.hidden = true;
    list.textContent = '';
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  }
  // Quick entry: the word being typed, when it starts with @ (a project, or `project / task`) or # (a tag).
  function wordAt(input) {
    var before = input.value.slice(0, input.selectionStart === null ? input.value.length : input.selectionStart);
    var match = /(^|\s)([@#])([^@#]*)$/.exec(before);
    return match ? { mark: match[2], text: match[3], start: before.length - match[3].length - 1, end: before.length } : null;
  }
  // What the form offers for a word: its projects and their tasks for @, its tags for #.
  function namesFor(input, word) {
    var form = input.form;
    var names = [];
    if (word.mark === '@') {
      var select = form.querySelector('select[name=projectId]');
      var tasks = form.querySelector('select[name=taskId]');
      if (select)
        Array.prototype.forEach.call(select.options, function (option) {
          if (option.value === '') return;
          var group = option.parentElement.tagName === 'OPTGROUP' ? option.parentElement.label : '';
          names.push({
            kind: 'project',
            id: option.value,
            label: option.textContent,
            hint: group ? say(input, 'inGroup', { group: group }) : say(input, 'project'),
          });
          if (tasks)
            tasks.querySelectorAll('option[data-project="' + option.value + '"]').forEach(function (t) {
              names.push({
                kind: 'task',
                id: t.value,
                project: option.value,
                label: option.textContent + ' / ' + t.textContent,
                hint: say(input, 'task'),
              });
            });
        });
    } else {
      form.querySelectorAll('input[name=tagIds]').forEach(function (box) {
        var name = box.nextElementSibling ? box.nextElementSibling.textContent : '';
        names.push({ kind: 'tag', id: box.value, label: name, hint: say(input, 'tag') });
      });
    }
    var text = word.text.trim().toLowerCase();
    return names
      .filter(function (n) {
        return n.label.toLowerCase().indexOf(text) >= 0;
      })
      .slice(0, 8);
  }
  // A name chosen: its picker is set, and the word leaves the text.
  function pickName(input, word, name) {
    var form = input.form;
    if (name.kind === 'tag') {
      form.querySelectorAll('input[name=tagIds]').forEach(function (box) {
        if (box.value === name.id) box.checked = true;
      });
      tagSummary(form.querySelector('details[data-tags]'));
    } else {
      var select = form.querySelector('select[name=projectId]');
      if (select) {
        select.value = name.kind === 'task' ? name.project : name.id;
        projectChosen(select);
      }
      var task = form.querySelector('select[name=taskId]');
      if (task) task.value = name.kind === 'task' ? name.id : '';
    }
    var rest = (input.value.slice(0, word.start) + input.value.slice(word.end)).replace(/\s{2,}/g, ' ');
    input.value = rest.replace(/^\s+/, '');
    var at = Math.min(word.start, input.value.length);
    input.setSelectionRange(at, at);
    closeList(input);
    announce(say(input, name.kind === 'tag' ? 'chosenTag' : name.kind === 'task' ? 'chosenTask' : 'chosenProject', { name: name.label }));
  }
  // The list, filled: each option with its hint, chosen by mouse or by Up/Down and Enter.
  function fillList(input, items, label, hint, pick) {
    var list = listOf(input);
    if (!list) return;
    list.textContent = '';
    items.forEach(function (item, i) {
      var li = document.createElement('li');
      li.id = input.id + '-option-' + i;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', 'false');
      li.textContent = label(item);
      var small = document.createElement('span');
      small.className = 'hint';
      small.textContent = hint(item);
      li.appendChild(small);
      li._pick = function () {
        pick(item);
      };
      li.addEventListener('mousedown', function (event) {
        event.preventDefault();
        pick(item);
      });
      list.appendChild(li);
    });
    list.hidden = items.length === 0;
    input.setAttribute('aria-expanded', items.length > 0 ? 'true' : 'false');
    input.removeAttribute('aria-activedescendant');
  }
  function suggest(input) {
    var word = wordAt(input);
    if (word) {
      var names = namesFor(input, word);
      if (names.length > 0 || word.text.trim() === '') {
        fillList(
          input,
          names,
          function (n) {
            return n.label;
          },
          function (n) {
            return n.hint;
          },
          function (n) {
            // The word as it stands now: typed on since the list was filled (within the 120 ms before it is filled anew), it is still this word.
            pickName(input, wordAt(input) || word, n);
          },
        );
        var projects = word.mark === '@';
        announce(
          names.length === 0
            ? say(input, projects ? 'noProjects' : 'noTags')
            : say(input, projects ? 'projectsMatch' : 'tagsMatch', { count: names.length }),
        );
        return;
      }
    }
    var text = input.value.trim();
    if (text.length < 2) return closeList(input);
    fetch(app + '/suggest?q=' + encodeURIComponent(text), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (r) {
        return r.ok ? r.json() : { data: [] };
      })
      .then(function (json) {
        var list = listOf(input);
        // Typed on meanwhile, or the form was swapped out: this answer is stale.
        if (input.value.trim() !== text || !list || !input.isConnected) return;
        fillList(
          input,
          json.data,
          function (s) {
            return s.description;
          },
          function (s) {
            return [s.clientName, s.projectName, s.taskName].filter(Boolean).join(' · ') || say(input, 'noProject');
          },
          function (s) {
            choose(input, s);
          },
        );
        announce(json.data.length === 0 ? say(input, 'noPast') : say(input, 'pastMatch', { count: json.data.length }));
      });
  }
  // A past entry chosen: its description, project, task, tags and Billable fill the form.
  function choose(input, s) {
    var form = input.form;
    input.value = s.description;
    var select = form.querySelector('select[name=projectId]');
    if (select) {
      select.value = s.projectId || '';
      projectChosen(select);
    }
    var task = form.querySelector('select[name=taskId]');
    if (task) task.value = s.taskId || '';
    form.querySelectorAll('input[name=tagIds]').forEach(function (box) {
      box.checked = s.tagIds.indexOf(box.value) >= 0;
    });
    tagSummary(form.querySelector('details[data-tags]'));
    var billable = form.querySelector('input[data-billable-box]');
    var shown = form.querySelector('input[name=billableFor]');
    if (billable && shown) {
      billable.checked = s.billable;
      shown.value = s.projectId || '';
    }
    closeList(input);
    announce(
      s.projectName
        ? say(input, 'filledProject', { what: s.description, project: s.projectName })
        : say(input, 'filled', { what: s.description }),
    );
  }
  function move(input, step) {
    var list = listOf(input);
    if (!list || list.hidden) return false;
    var options = Array.prototype.slice.call(list.children);
    var current = options.findIndex(function (o) {
      return o.getAttribute('aria-selected') === 'true';
    });
    var next = (current + step + options.length) % options.length;
    options.forEach(function (o, i) {
      o.setAttribute('aria-selected', i === next ? 'true' : 'false');
    });
    input.setAttribute('aria-activedescendant', options[next].id);
    options[next].scrollIntoView({ block: 'nearest' });
    return true;
  }
  document.addEventListener('input', function (event) {
    var target = event.target;
    if (target.hasAttribute && target.hasAttribute('data-suggest')) {
      clearTimeout(suggestTimer);
      suggestTimer = setTimeout(function () {
        suggest(target);
      }, 120);
    } else if (target.classList && target.classList.contains('picker-filter')) {
      var first = filterProjects(target);
      var select = document.getElementById(target.getAttribute('data-filter-for'));
      // Typing picks the first project that matches, unless the one chosen still matches ("No project" never does).
      var current = select && select.selectedOptions[0];
      if (first && select && (!current || current.hidden || (current.value === '' && target.value.trim() !== ''))) {
        select.value = first.value;
        projectChosen(select);
      }
    } else if (target.classList && target.classList.contains('chip-filter')) {
      filterTags(target);
    } else if (target.id === 'week-filter') {
      var text = target.value.trim().toLowerCase();
      document.querySelectorAll('#live-region li.entry').forEach(function (li) {
        li.hidden = text !== '' && li.textContent.toLowerCase().indexOf(text) < 0;
      });
    }
  });
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    if (target.hasAttribute && target.hasAttribute('data-suggest')) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        if (move(target, event.key === 'ArrowDown' ? 1 : -1)) event.preventDefault();
      } else if (event.key === 'Enter') {
        var chosen = listOf(target).querySelector('[aria-selected=true]');
        if (chosen && !listOf(target).hidden) {
          event.preventDefault();
          chosen._pick();
        }
      } else if (event.key === 'Escape') closeList(target);
    } else if (target.classList && target.classList.contains('chip-filter') && event.key === 'Enter') {
      event.preventDefault();
      tagEnter(target);
    }
  });
  document.addEventListener('focusout', function (event) {
    var target = event.target;
    if (target.hasAttribute && target.hasAttribute('data-suggest')) closeList(target);
  });
  function showHelpers(root) {
    root.querySelectorAll('.picker-filter, .chip-filter, #week-filter').forEach(function (el) {
      el.hidden = false;
    });
    root.querySelectorAll('select[name=taskId]').forEach(function (select) {
      if (select.form) tasksFollow(select.form);
    });
  }

  // --- In-place forms: no reload, the page keeps its place, a short confirmation ---------------
  var region = document.getElementById('live-region');
  function swap(html, url, keepToast, sent) {
    var next = new DOMParser().parseFromString(html, 'text/html').getElementById('live-region');
    if (!next || !region) return false;
    var y = window.scrollY;
    // A confirmation on screen stays (it goes by itself): a live refresh has none of its own, and
    // either read of the page after a write may be the one that carries it.
    var toast = region.querySelector('.notice.toast');
    var fresh = next.querySelector('.notice.toast') !== null;
    if (toast && !fresh) {
      // One beside its form (the Catalog) goes back beside that form, if it is still there.
      var home = toast.parentElement === region ? next : counterpart(toast.parentElement, next);
      if (home === next) next.insertBefore(toast, next.firstChild);
      else if (home) home.appendChild(toast);
    }
    // A field being typed in keeps its text and caret (a write answered while the person went on:
    // `s` then `n` at once); the form that starts another timer becomes the timer's when none runs.
    // A form that keeps the focus keeps its place in the window too (forms above it may open or close).
    var anchor = sent && sent.hasAttribute('data-keep-focus') && sent.isConnected ? sent.getBoundingClientRect().top : null;
    var typed = document.activeElement;
    var carried = null;
    var working = typed && region.contains(typed) && typed.form !== sent && /^(INPUT|TEXTAREA)$/.test(typed.tagName);
    if (working && typed.id && typed.type !== 'hidden') {
      // The page's ids are letters, digits, - and _ (entries' ids among them): safe in an attribute selector.
      var same = next.querySelector('[id="' + typed.id + '"]') || next.querySelector('[id="' + typed.id.replace(/^next-/, 'timer-') + '"]');
      if (same && same.tagName === typed.tagName) carried = { into: same, value: typed.value, at: typed.selectionStart };
    }
    region.replaceWith(next);
    region = next;
    wire(region);
    tick();
    window.scrollTo(0, y);
    if (url && window.history && history.replaceState) history.replaceState(null, '', url);
    var invalid = region.querySelector('[aria-invalid=true]');
    var shown = region.querySelector('.notice.toast');
    if (carried && !invalid) {
      var details = carried.into.closest('details');
      if (details) details.open = true;
      carried.into.value = carried.value;
      carried.into.focus();
      if (carried.at !== null) carried.into.setSelectionRange(carried.at, carried.at);
    }
    if (invalid) invalid.focus();
    else if (anchor !== null) keepFocus(sent, anchor);
    if (!invalid && shown && fresh && !keepToast) announce(shown.textContent.replace(/\s+/g, ' ').trim());
    return true;
  }
  // The element of the swapped region that stands where `old` stood: a form by its action, a section by its heading.
  function counterpart(old, root) {
    var form = old.closest('form[action]');
    if (form) return root.querySelector('form[action="' + form.getAttribute('action') + '"]');
    var section = old.closest('section[aria-labelledby]');
    return section ? root.querySelector('section[aria-labelledby="' + section.getAttribute('aria-labelledby') + '"]') : null;
  }
  // A form saved in place keeps the focus (the Catalog): its new self stays open, focused on its first
  // field (a form for the next one, data-keep-focus="first") or on the button that saved it.
  function keepFocus(sent, top) {
    var form = counterpart(sent, region);
    if (!form) return;
    var details = form.closest('details');
    if (details) details.open = true;
    window.scrollBy(0, form.getBoundingClientRect().top - top);
    var target =
      form.getAttribute('data-keep-focus') === 'first'
        ? form.querySelector('input:not([type=hidden]), select, textarea')
        : form.querySelector('button[type=submit]');
    if (target) target.focus({ preventScroll: true });
  }
  function inplace(form, submitter) {
    var data = new URLSearchParams(new FormData(form, submitter));
    // A button may post elsewhere than its form (a row's ▶ and ✕ share the page's one row form).
    var action = submitter && submitter.hasAttribute('formaction') ? submitter.formAction : form.action;
    fetch(action, { method: 'POST', body: data, credentials: 'same-origin', headers: { 'X-Inplace': '1' } })
      .then(function (r) {
        return r.text().then(function (text) {
          return { url: r.url, ok: r.ok, text: text };
        });
      })
      .then(function (answer) {
        // A refused form comes back with its message at its field; a write, with the week as it is now.
        if (swap(answer.text, answer.ok ? answer.url.replace(/#.*$/, '') : null, false, form)) return;
        // Not the week (a page of its own: not found, not allowed): shown as it came.
        document.open();
        document.write(answer.text);
        document.close();
      })
      .catch(function () {
        form.submit();
      });
  }
  function open(link) {
    fetch(link.href, { credentials: 'same-origin' })
      .then(function (r) {
        return r.text().then(function (text) {
          return { url: r.url, text: text };
        });
      })
      .then(function (answer) {
        if (!swap(answer.text, link.href.replace(/#.*$/, ''))) return;
        var target = region.querySelector(link.hash || '#x');
        if (target) {
          target.scrollIntoView({ block: 'nearest' });
          var first = target.querySelector('input[type=text], input:not([type=hidden])');
          if (first) first.focus();
        }
      });
  }
  function wire(root) {
    showHelpers(root);
    root.querySelectorAll('form[data-confirm]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
      });
    });
    root.querySelectorAll('form[data-inplace]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        if (event.defaultPrevented) return;
        event.preventDefault();
        inplace(form, event.submitter);
      });
    });
    root.querySelectorAll('a[data-edit], a[data-add-day]').forEach(function (link) {
      link.addEventListener('click', function (event) {
        if (event.ctrlKey || event.metaKey || event.shiftKey) return;
        event.preventDefault();
        open(link);
      });
    });
    // A confirmation goes after 8 seconds.
    root.querySelectorAll('.notice.toast.ok').forEach(function (notice) {
      if (notice.querySelector('form[data-undo-ms]')) return;
      setTimeout(function () {
        if (notice.isConnected) notice.remove();
      }, 8000);
    });
    // An Undo lasts its seconds: then its notice goes (the server refuses it after them anyway).
    root.querySelectorAll('form[data-undo-ms]').forEach(function (form) {
      setTimeout(
        function () {
          var notice = form.closest('.notice');
          if (notice && notice.isConnected) notice.remove();
        },
        Number(form.getAttribute('data-undo-ms')),
      );
    });
  }
  wire(document);
  // After a refused form: the first refused field, focused (its message is tied to it).
  var refused = document.querySelector('[aria-invalid=true]');
  if (refused) refused.focus();

  // --- Shortcuts: n new timer, s start/stop, c continue the last, m add time, / find, ? the list --
  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing()) return;
    var key = event.key;
    var act = {
      // A new timer: the idle timer's description, or (one runs) the form that starts another, opened.
      n: function () {
        var next = document.querySelector('details.next-timer');
        if (next) next.open = true;
        var input = document.getElementById(next ? 'next-description' : 'timer-description');
        if (input) input.focus();
        return !!input;
      },
      s: function () {
        var button = document.querySelector('button[data-shortcut=timer]');
        if (button) button.form.requestSubmit(button);
        return !!button;
      },
      // Continue the entry that ended last (by its end, whatever the order of the starts).
      c: function () {
        var last = null;
        document.querySelectorAll('#live-region li.entry button[data-continue]').forEach(function (button) {
          if (!last || button.getAttribute('data-ended') > last.getAttribute('data-ended')) last = button;
        });
        if (last) last.form.requestSubmit(last);
        return !!last;
      },
      m: function () {
        var link = document.querySelector('a.add-time');
        if (link) link.click();
        return !!link;
      },
      '/': function () {
        var find = document.getElementById('week-filter');
        if (find) find.focus();
        return !!find;
      },
      '?': function () {
        var dialog = document.getElementById('shortcuts');
        if (dialog && dialog.showModal) dialog.showModal();
        return !!dialog;
      },
    }[key];
    if (act && act()) event.preventDefault();
  });

  // The browser's zone, told once (the member can change it later). The page is read again in it,
  // unless the person has started to leave it meanwhile (a form sent, a link followed): a reload
  // would cancel that navigation (a Sign out, a Save), and the next page is drawn in the zone anyway.
  if (body.getAttribute('data-ask-zone') === 'true') {
    var leaving = false;
    window.addEventListener('beforeunload', function () {
      leaving = true;
    });
    try {
      var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      var zoneForm = new FormData();
      zoneForm.append('_csrf', body.getAttribute('data-csrf'));
      zoneForm.append('timeZone', zone);
      fetch(app + '/preferences/zone', {
        method: 'POST',
        body: new URLSearchParams(zoneForm),
        credentials: 'same-origin',
      }).then(function (r) {
        if (r.ok && !leaving) location.reload();
      });
    } catch {
      // No zone from the browser: the member chooses one on the Profile page.
    }
  }

  // --- Live: a change anywhere reads this page again and swaps its region, unless the person is at work in it.
  var status = document.getElementById('live-status');
  if (!region || !window.EventSource || body.getAttribute('data-live') !== 'true') return;
  var pending = false;
  function busy() {
    var a = document.activeElement;
    return (
      (a && region.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName)) ||
      region.querySelector('details[open], li.entry.open, form.add') !== null
    );
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
        if (busy()) {
          pending = true;
          return;
        }
        swap(text, null, true);
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
  var source = new EventSource(app + '/events');
  source.addEventListener('change', refresh);
  source.addEventListener('resync', refresh);
  source.addEventListener('open', function () {
    if (status) status.textContent = 'Live';
  });
  source.addEventListener('error', function () {
    if (status) status.textContent = source.readyState === 2 ? 'Live updates are off: reload the page' : 'Reconnecting…';
  });
})();
