// The status page's script: follows the order over its live stream until it completes or is
// cancelled; where the stream cannot be had (refused, or no EventSource), with conditional requests
// (a 304 costs the server one indexed look-up), paused while the tab is hidden.
import {
  FINAL_STATUSES,
  finalNote,
  stepStates,
  type GuestOrderStatus,
  type GuestOrderType,
  type StatusPageData,
} from '../../src/modules/guest-page/shared/page-data.js';
import { byId, h, replace } from '../shared/dom.js';

/**
 * Polling, the fallback: a change shows within 2 s, a poll every 1.5 s plus its round
 * trip. Each poll is one request of the per-IP budget (50 in 10 s), where the stream takes one in
 * all: guests of one café share an address. A 429 waits for its Retry-After.
 */
const POLL_MS = 1500;

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
      replace(
        steps,
        ...stepStates(order.status, order.type).map(({ step, state }) =>
          h(
            'li',
            { class: state, 'aria-current': state === 'current' ? 'step' : null },
            t[`status_${step}`],
            state === 'done' ? h('span', { class: 'visually-hidden' }, ` ${t.stepDone}`) : null,
          ),
        ),
      );
    }
    const final = FINAL_STATUSES.includes(order.status);
    for (const id of ['status-hint', 'status-ready']) {
      const el = byId(id);
      if (el) el.hidden = final;
    }
    const note = byId('status-final');
    if (note) {
      note.textContent = finalNote(order.status, t) ?? '';
      note.hidden = !final;
    }
  };

  const poll = async () => {
    timer = undefined;
    let wait = POLL_MS;
    try {
      const res = await fetch(data.orderUrl, { cache: 'no-store', headers: etag ? { 'if-none-match': etag } : {} });
      if (res.status === 200) {
        etag = res.headers.get('etag');
        render((await res.json()) as OrderView);
      } else if (res.status === 429) {
        wait = Math.max(POLL_MS, Number(res.headers.get('retry-after')) * 1000 || 0);
      }
    } catch {
      // Offline for a moment: the next tick tries again.
    }
    schedule(wait);
  };

  const schedule = (wait = POLL_MS) => {
    if (timer !== undefined || document.hidden || FINAL_STATUSES.includes(main.dataset.status as GuestOrderStatus)) return;
    timer = window.setTimeout(poll, wait);
  };

  const isFinal = () => FINAL_STATUSES.includes(main.dataset.status as GuestOrderStatus);
  let polling = false;
  const startPolling = () => {
    polling = true;
    document.addEventListener('visibilitychange', () => {
      if (timer !== undefined) window.clearTimeout(timer);
      timer = undefined;
      // Back on the tab: look now rather than at the next tick.
      if (!document.hidden && !isFinal()) void poll();
    });
    schedule();
  };

  if (isFinal()) return;
  if (typeof EventSource === 'undefined') return startPolling();
  // EventSource reconnects by itself after a drop, sending the last event's id (the order's ETag).
  const source = new EventSource(`${data.orderUrl}/stream`);
  source.addEventListener('order.updated', (event) => {
    render(JSON.parse((event as MessageEvent<string>).data) as OrderView);
    if (isFinal()) source.close();
  });
  source.addEventListener('error', () => {
    // Closed for good (refused: a 429, a 404): poll instead.
    if (source.readyState === EventSource.CLOSED && !polling && !isFinal()) startPolling();
  });
}
