// The checkout's "when" (scheduled orders): why ordering is closed now, if it is;
// with scheduled orders, a day ("As soon as possible" first while open) and a quarter hour inside
// the opening hours. The pick is the state's TimePick (time-pick.ts).
import { orderingMessage } from '../../src/modules/guest-page/shared/availability.js';
import { h, replace } from '../shared/dom.js';
import type { MenuState } from './menu-state.js';
import type { PageView } from './page-view.js';
import { ASAP } from './time-pick.js';

/** The box, made again whole when ordering changes; `onChange` follows a new pick. */
export function whenBox(view: PageView, state: MenuState, onChange: () => void): HTMLElement {
  const { t, when } = view;
  const { ordering, time } = state;
  const now = Date.now();
  const closed = orderingMessage(ordering, when, now, t);
  const days = state.scheduleDays(now);
  if (days.length === 0) {
    const text = closed && ordering.scheduledOrders.enabled ? `${closed} ${t.noSlots}` : closed;
    return h('div', { id: 'when-box' }, text ? h('p', { class: 'notice', id: 'checkout-closed' }, text) : null);
  }

  const timeSelect = h('select', { id: 'f-scheduledFor', name: 'scheduledFor', 'aria-describedby': 'err-scheduledFor' });
  const timeField = h(
    'div',
    { class: 'field', id: 'field-scheduledFor' },
    h('label', { for: 'f-scheduledFor' }, t.time),
    timeSelect,
    h('p', { class: 'field-error', id: 'err-scheduledFor', hidden: true }),
  );
  const fillTimes = () => {
    const slots = time.slotsOf(days);
    timeField.hidden = !slots;
    if (!slots) return;
    replace(
      timeSelect,
      ...slots.slots.map((slot, i) => h('option', { value: slots.values[i], selected: slots.values[i] === time.slot }, when.time(slot))),
    );
  };
  const daySelect = h(
    'select',
    { id: 'f-when', name: 'when' },
    ordering.open ? h('option', { value: ASAP, selected: time.day === ASAP }, t.asap) : null,
    ...days.map((d) => h('option', { value: String(d.day), selected: String(d.day) === time.day }, when.dayLabel(d.slots[0], now))),
  );
  daySelect.addEventListener('change', () => {
    time.chooseDay(daySelect.value);
    fillTimes();
    onChange();
  });
  timeSelect.addEventListener('change', () => {
    time.chooseSlot(timeSelect.value);
    onChange();
  });
  fillTimes();
  return h(
    'div',
    { id: 'when-box' },
    closed ? h('p', { class: 'hint', id: 'checkout-closed' }, closed) : null,
    h('div', { class: 'field', id: 'field-when' }, h('label', { for: 'f-when' }, t.when), daySelect),
    timeField,
  );
}
