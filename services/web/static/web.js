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
