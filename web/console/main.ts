// The venue console's board page (docs/console.md "The board"): the server renders the shell (the
// header, the tabs, the empty columns); this script fills the board and keeps it live, and draws
// the Service tab and, for owners, the Staff tab.
import './console.css';
import { byId } from '../shared/dom.js';
import { startBoard } from './board.js';
import { startService, type ServiceControl } from './service.js';
import { startSound } from './sound.js';
import { startStaff, type StaffControl } from './staff.js';
import type { Board } from './types.js';

type View = 'orders' | 'service' | 'staff';

/** The Service tab looks again this often while shown: sold-out marks end by themselves, and other screens change them. */
const SERVICE_REFRESH_MS = 30_000;

/**
 * The views as tabs (the ARIA tabs pattern): one tab stop, the arrow keys, Home and End move
 * between them; a tab opened shows its panel, and the Service and Staff panels load then.
 */
function startTabs(opened: (view: View) => void): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"][data-view]')];
  const select = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      const panel = byId(t.getAttribute('aria-controls') ?? '');
      if (panel) panel.hidden = !on;
    }
    if (focus) tab.focus();
    opened(tab.dataset.view as View);
  };
  for (const [i, tab] of tabs.entries()) {
    tab.addEventListener('click', () => select(tab, false));
    tab.addEventListener('keydown', (event) => {
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      select(tabs[(to + tabs.length) % tabs.length], true);
    });
  }
}

function start(): void {
  if (!byId('board')) return;
  startSound();
  let service: ServiceControl | null = null;
  let staff: StaffControl | null = null;
  let board: Board | null = null;
  let view: View = 'orders';

  const open = (next: View) => {
    view = next;
    if (!board) return;
    if (next === 'service') {
      service ??= startService({
        role: board.member.role,
        timezone: board.venue.timezone,
        prepTimeChanged: (minutes) => control.setPrepTime(minutes),
      });
      void service.refresh();
    }
    if (next === 'staff' && board.member.role === 'owner') {
      staff ??= startStaff(board.member);
      void staff.refresh();
    }
  };

  const control = startBoard({
    loaded(loaded) {
      const first = board === null;
      board = loaded;
      // A tab opened before the board's data came loads now.
      if (first && view !== 'orders') open(view);
    },
  });
  startTabs(open);
  setInterval(() => {
    // Not while someone works in the panel (a redraw would take their focus) or a dialog is open.
    const active = document.activeElement;
    const busy =
      (byId('panel-service')?.contains(active) && active !== byId('service-search')) || document.querySelector('dialog[open]') !== null;
    if (view === 'service' && service && !document.hidden && !busy) void service.refresh();
  }, SERVICE_REFRESH_MS);
}

start();
