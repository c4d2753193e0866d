// The guest page's one script (docs/guest-page.md): the menu page or an order's status page,
// whichever the server rendered. Without it the menu still reads; it adds ordering.
import './guest.css';
import type { PageData, StatusPageData } from '../../src/modules/guest-page/shared/page-data.js';
import { startCarousel } from './carousel.js';
import { byId, pageData } from '../shared/dom.js';
import { startFilter } from './filter.js';
import { startMenu } from './menu.js';
import { startStatus } from './status.js';

if (byId('status')) {
  const data = pageData<StatusPageData>();
  if (data) startStatus(data);
} else if (byId('menu')) {
  const data = pageData<PageData>();
  if (data) {
    startFilter(data);
    startCarousel();
    startMenu(data);
  }
}
