// The status page's script: follows the order with conditional requests (a 304 costs the server
// one indexed look-up) until it completes or is cancelled; paused while the tab is hidden.
import { FINAL_STATUSES, stepStates, type GuestOrderStatus, type GuestOrderType, type StatusPageData } from '../../src/modules/guest-page/shared/page-data.js';
import { byId, h, replace } from './dom.js';

const POLL_MS = 4000;

interface OrderView {
  status: GuestOrderStatus;
  type: GuestOrderType;
}

export function startStatus(data: StatusPageData): void {
  const t = data.strings;
  const main = byId('status');
  if (!main) return;
  let etag: string | null = null;
  let timer: number | undefined;

  const render = (order: OrderView) => {
    main.dataset.status = order.status;
    const now = byId('status-now');
    if (now) now.textContent = t[`status_${order.status}`];
    const steps = byId('status-steps');
    if (steps) {
      replace(steps, ...stepStates(order.status, order.type).map(({ step, state }) =>
        h('li', { class: state, 'aria-current': state === 'current' ? 'step' : null }, t[`status_${step}`])));
    }
    const hint = byId('status-hint');
    if (hint) hint.hidden = FINAL_STATUSES.includes(order.status);
  };

  const poll = async () => {
    timer = undefined;
    try {
      const res = await fetch(data.orderUrl, { cache: 'no-store', headers: etag ? { 'if-none-match': etag } : {} });
      if (res.status === 200) {
        etag = res.headers.get('etag');
        render((await res.json()) as OrderView);
      }
    } catch {
      // Offline for a moment: the next tick tries again.
    }
    schedule();
  };

  const schedule = () => {
    if (timer !== undefined || document.hidden || FINAL_STATUSES.includes(main.dataset.status as GuestOrderStatus)) return;
    timer = window.setTimeout(poll, POLL_MS);
  };

  document.addEventListener('visibilitychange', () => {
    if (timer !== undefined) window.clearTimeout(timer);
    timer = undefined;
    // Back on the tab: look now rather than at the next tick.
    if (!document.hidden && !FINAL_STATUSES.includes(main.dataset.status as GuestOrderStatus)) void poll();
  });
  schedule();
}
