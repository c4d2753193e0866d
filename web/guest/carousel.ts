// The banner carousel's previous and next buttons (docs/guest-page.md). A finger swipes the banners
// and the arrow keys scroll them once focused, but a mouse without a sideways wheel has neither:
// each button scrolls one banner, and scroll snap settles it. Nothing moves by itself (no autoplay).

export function startCarousel(): void {
  const track = document.querySelector<HTMLElement>('.carousel .banners');
  const prev = document.querySelector<HTMLButtonElement>('.carousel .carousel-prev');
  const next = document.querySelector<HTMLButtonElement>('.carousel .carousel-next');
  const items = track?.querySelectorAll('li');
  if (track && prev && next && items && items.length > 1) wire(track, items[0], items[1], prev, next);
}

function wire(track: HTMLElement, first: Element, second: Element, prev: HTMLButtonElement, next: HTMLButtonElement): void {
  /** One banner to the inline end (`1`) or start (`-1`): leftwards to the end in Arabic. */
  function move(towards: 1 | -1): void {
    const step = Math.abs(second.getBoundingClientRect().left - first.getBoundingClientRect().left);
    const rtl = getComputedStyle(track).direction === 'rtl';
    track.scrollBy({ left: step * towards * (rtl ? -1 : 1) });
  }

  /**
   * No buttons while every banner is in view (a wide screen, a few banners). At either end its
   * button says it does nothing (aria-disabled, not disabled: a focused button keeps the focus).
   * Right to left, scrollLeft runs from 0 to negative values, hence its size.
   */
  function edges(): void {
    const end = track.scrollWidth - track.clientWidth;
    const at = Math.abs(track.scrollLeft);
    const atStart = String(at <= 1);
    const atEnd = String(at >= end - 1);
    if (prev.getAttribute('aria-disabled') !== atStart) prev.setAttribute('aria-disabled', atStart);
    if (next.getAttribute('aria-disabled') !== atEnd) next.setAttribute('aria-disabled', atEnd);
    prev.hidden = end <= 1;
    next.hidden = end <= 1;
  }

  prev.addEventListener('click', () => move(-1));
  next.addEventListener('click', () => move(1));
  track.addEventListener('scroll', edges, { passive: true });
  new ResizeObserver(edges).observe(track);
}
