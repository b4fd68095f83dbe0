// The web front end's own script, the only one besides htmx and its SSE extension (no inline scripts: the
// Content-Security-Policy allows only this service's own files).
(function () {
  "use strict";

  // Think-time clocks: every <time class="clock" data-deadline="ISO"> counts down to its deadline. htmx swaps
  // new clocks in, so each tick looks them up afresh.
  function tick() {
    var now = Date.now();
    var clocks = document.querySelectorAll("time.clock[data-deadline]");
    for (var i = 0; i < clocks.length; i++) {
      var left = Math.max(0, Math.round((Date.parse(clocks[i].getAttribute("data-deadline")) - now) / 1000));
      var text = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (clocks[i].textContent !== text) {
        clocks[i].textContent = text;
      }
      clocks[i].classList.toggle("late", left <= 10);
    }
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSettle", tick);

  // Never draw an older state over a newer one: a move's answer (the game after the move) may arrive after the
  // live stream has already shown a computer's reply. Each game part carries its event number (data-n).
  function shown() {
    var status = document.querySelector("#game .status[data-n]");
    return status ? Number(status.getAttribute("data-n")) : -1;
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "game" || !event.detail.xhr) {
      return;
    }
    var match = /class="status" data-n="(\d+)"/.exec(event.detail.serverResponse || "");
    if (match && Number(match[1]) < shown()) {
      event.detail.shouldSwap = false;
      var preview = document.getElementById("preview");
      if (preview) {
        preview.innerHTML = "";
      }
    }
  });

  // The button a swapped-in bar offers first ("Zug ausführen", "Ja, verlassen") takes the focus once htmx has wired
  // it (htmx:load follows its processing). A plain `autofocus` was focused by the browser as the bar was inserted,
  // before htmx wired it: an Enter pressed in that moment clicked a button that did nothing.
  document.addEventListener("htmx:load", function (event) {
    var root = event.target;
    var first = root && root.matches && root.matches("[data-autofocus]") ? root
      : (root && root.querySelector ? root.querySelector("[data-autofocus]") : null);
    if (first) {
      first.focus();
    }
  });

  // Board elements that are no <button> (cells of an SVG map: role="button" tabindex="0") act on Enter and Space
  // as buttons do, so a board is keyboard operable; htmx listens for the click.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if ((event.key === "Enter" || event.key === " ") && target && target.getAttribute &&
        target.getAttribute("role") === "button" && target.tagName.toLowerCase() !== "button") {
      event.preventDefault();
      target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    }
  });

  // Two-click board moves (Speedmosaik): a button with data-pick (a colour in a display) selects the first half
  // of a move and shows the buttons with the same data-pick-for (the targets, each carrying a complete legal
  // move to the preview); clicking it again, or another pick, changes the selection. Everything else is htmx.
  // A redraw of the same state (the live stream starts with the state the page already shows) keeps the choice.
  var picked = null; // {key, n} of the selection on the board
  function showPick(board, key, focus) {
    var first = null;
    board.querySelectorAll("[data-pick]").forEach(function (other) {
      other.setAttribute("aria-pressed", other.getAttribute("data-pick") === key ? "true" : "false");
    });
    board.querySelectorAll("[data-pick-for]").forEach(function (target) {
      target.hidden = target.getAttribute("data-pick-for") !== key;
      first = first || (target.hidden ? null : target);
    });
    if (first && focus) {
      first.focus(); // chosen by keyboard (Enter or Space): on to the first target
    }
  }
  document.addEventListener("click", function (event) {
    var pick = event.target.closest ? event.target.closest("[data-pick]") : null;
    var board = pick ? pick.closest(".board") : null;
    if (!board) {
      return;
    }
    var key = pick.getAttribute("aria-pressed") === "true" ? null : pick.getAttribute("data-pick");
    picked = key === null ? null : { key: key, n: board.getAttribute("data-n") };
    showPick(board, key, event.detail === 0);
  });
  document.addEventListener("htmx:afterSettle", function () {
    var board = document.querySelector("#board .board[data-n]");
    if (!picked || !board) {
      return;
    }
    if (board.getAttribute("data-n") !== picked.n) {
      picked = null; // a new state: its choices start afresh
      return;
    }
    // With the move bar open the pick is done: its "Zug ausführen" has the focus (autofocus). Taking the focus back
    // to the pick's target here, between the bar's swap and its autofocus, lost an Enter pressed in that moment.
    var barOpen = !!document.querySelector("#preview .move-bar");
    var lost = !barOpen && (!document.activeElement || document.activeElement === document.body);
    showPick(board, picked.key, lost);
  });
})();

// ---- a half-made choice on a board drawn by the server survives a live redraw of the same state ----
// Speednova's choices (a tile picked, its cell, „Feld frei halten“) are states of the board the server draws for
// `GET /spiel/{id}/brett?…`. A live update that does not change the game's state (a team signal lives in the team's
// log) redraws the plain board under the player's hands: the choice is asked for again, and the server drops what
// the legal moves no longer allow. A move sent (any hx-post), "Abbrechen" (no query) or a new state ends it.
(function () {
  "use strict";
  var choice = null; // {url, n}
  function shownN() {
    var status = document.querySelector("#game .status[data-n]");
    return status ? status.getAttribute("data-n") : null;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || !elt.getAttribute) {
      return;
    }
    var get = elt.getAttribute("hx-get");
    if (get && /\/brett(\?|$)/.test(get)) {
      choice = get.indexOf("?") >= 0 ? { url: get, n: shownN() } : null;
    } else if (elt.getAttribute("hx-post") || (get && /\/abbrechen$/.test(get))) {
      choice = null;
    }
  });
  // The SSE extension tells the element it swapped into, after the swap.
  document.addEventListener("htmx:sseMessage", function (event) {
    var target = event.target;
    if (!choice || !target || target.id !== "board") {
      return;
    }
    if (shownN() !== choice.n) {
      choice = null; // a new state: its choices start afresh
      return;
    }
    htmx.ajax("GET", choice.url, { target: "#board", swap: "innerHTML" });
  });
})();

// ---- the game page shell: settings, the tab title, the move sound, one-click moves ----
// Settings live in localStorage (this browser only): "speed.confirm" ("Züge bestätigen": "1" on; off by default,
// so a move goes out at its first click) and "speed.sound" (a short tone when it becomes your turn; off by
// default). The tab title starts with "▶ Dein Zug" while the page's game part says so (data-turn="1").
(function () {
  "use strict";
  function setting(key) {
    try {
      return window.localStorage.getItem(key) === "1";
    } catch (error) {
      return false;
    }
  }
  function store(key, on) {
    try {
      window.localStorage.setItem(key, on ? "1" : "0");
    } catch (error) {
      // private mode without storage: the setting lasts as long as the page
    }
  }
  function showSettings() {
    document.querySelectorAll("input[data-setting]").forEach(function (box) {
      box.checked = setting(box.getAttribute("data-setting"));
    });
  }
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box && box.matches && box.matches("input[data-setting]")) {
      store(box.getAttribute("data-setting"), box.checked);
      if (box.checked && box.getAttribute("data-setting") === "speed.sound") {
        audio(); // a click is the gesture the browser wants before it plays anything
      }
    }
  });

  // While "Züge bestätigen" is off, a move clicked on the board is made at once: the preview route makes it
  // unless the table's preview warns (then the bar asks all the same).
  document.addEventListener("htmx:configRequest", function (event) {
    var path = event.detail && event.detail.path;
    if (path && /\/spiel\/[^/]+\/vorschau$/.test(path) && !setting("speed.confirm")) {
      event.detail.parameters.direkt = "1";
    }
  });

  var context = null;
  function audio() {
    var Kind = window.AudioContext || window.webkitAudioContext;
    if (!Kind) {
      return null;
    }
    if (!context) {
      context = new Kind();
    }
    if (context.state === "suspended") {
      context.resume();
    }
    return context;
  }
  function beep() {
    var ctx = audio();
    document.body.setAttribute("data-beeps", String(Number(document.body.getAttribute("data-beeps") || 0) + 1));
    if (!ctx) {
      return;
    }
    var now = ctx.currentTime;
    [[660, 0], [880, 0.12]].forEach(function (note) {
      var osc = ctx.createOscillator();
      var gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = note[0];
      gain.gain.setValueAtTime(0.0001, now + note[1]);
      gain.gain.exponentialRampToValueAtTime(0.2, now + note[1] + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + note[1] + 0.18);
      osc.connect(gain);
      gain.connect(ctx.destination);
      osc.start(now + note[1]);
      osc.stop(now + note[1] + 0.2);
    });
  }

  var wasTurn = null; // null: the page has just loaded (no tone for the state it opens with)
  function follow() {
    var page = document.querySelector(".game-page[data-title]");
    var status = document.querySelector("#game .status[data-n]");
    if (!page || !status) {
      return;
    }
    var turn = status.getAttribute("data-turn") === "1";
    var base = page.getAttribute("data-title") + " – Speed";
    var title = turn ? "▶ Dein Zug – " + base : base;
    if (document.title !== title) {
      document.title = title;
    }
    if (turn && wasTurn === false) {
      // counted on the body (the tests read it): the turns that came to the viewer, the tones played
      document.body.setAttribute("data-turns", String(Number(document.body.getAttribute("data-turns") || 0) + 1));
      if (setting("speed.sound")) {
        beep();
      }
    }
    wasTurn = turn;
  }
  document.addEventListener("DOMContentLoaded", function () {
    showSettings();
    follow();
    // Beside the board (a desktop) the menu stands open; on a phone, below the board, it starts closed.
    var menu = document.querySelector("details.menu");
    if (menu && window.matchMedia && window.matchMedia("(min-width: 60rem)").matches) {
      menu.open = true;
    }
  });
  document.addEventListener("htmx:afterSettle", follow);
  document.addEventListener("htmx:sseMessage", follow);

  // #board's data-n: the event number of the state the board is drawn for. The live stream sends the game part
  // first, then the board; a move's answer brings both at once. (Tests wait for it; a board may carry its own.)
  function stamp() {
    var board = document.getElementById("board");
    var status = document.querySelector("#game .status[data-n]");
    if (board && status) {
      board.setAttribute("data-n", status.getAttribute("data-n"));
    }
  }
  document.addEventListener("DOMContentLoaded", stamp);
  document.addEventListener("htmx:sseMessage", function (event) {
    if (event.target && event.target.id === "board") {
      stamp();
    }
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "game" && event.detail.xhr) {
      stamp();
    }
  });
})();

// ---- replay: arrow keys step through a finished game (Pfeil links/rechts, Pos1, Ende) ----
(function () {
  "use strict";
  var KEYS = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var step = KEYS[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey || !document.getElementById("replay")) {
      return;
    }
    var target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
      return;  // the slider and the seat choice keep their own keys
    }
    event.preventDefault();
    // A key pressed while the last step is still loading or being drawn waits for it (htmx wires the new
    // buttons only once the swap has settled).
    if (document.querySelector("#replay .htmx-request, #replay.htmx-swapping, #replay.htmx-settling")) {
      pending = step;
    } else {
      go(step);
    }
  });
  var pending = null;
  function go(step) {
    var button = document.querySelector('#replay [data-step="' + step + '"]:not([disabled])');
    if (button) {
      button.click();
    }
  }
  document.addEventListener("htmx:afterSettle", function () {
    if (pending && document.getElementById("replay")) {
      var step = pending;
      pending = null;
      go(step);
    }
  });
})();

// ---- table chat: the newest message stays in view ----
document.addEventListener("htmx:load", function (event) {
  "use strict";
  var elt = event.detail && event.detail.elt;
  var list = elt && elt.closest ? elt.closest("#chat-messages") : null;
  if (list) {
    list.scrollTop = list.scrollHeight;
  }
});
