import { makeBenchImage } from './bench/images.ts';
import { startApp, createVenue, syncOk, call } from './test/helpers/app.ts';
import sharp from 'sharp';
const mb = (n: number) => Math.round(n / 1024 / 1024);
const mem = (label: string) => { const m = process.memoryUsage(); console.log(label, 'rss', mb(m.rss), 'heap', mb(m.heapUsed), 'ext', mb(m.external), 'ab', mb(m.arrayBuffers)); };
const t = await startApp();
const v = await createVenue(t.app);
await syncOk(t.app, v, { products: [{ externalId: 'p', name: 'P', priceMinor: 1 }] });
const big = await makeBenchImage(4000, 50, 95);
const body = JSON.stringify({ base64: big.toString('base64') });
global.gc?.(); mem('before');
let peak = 0; const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 2);
const stage = process.env.STAGE;
if (stage === 'sharp') {
  await (await import('./src/modules/media/image-processor.ts')).ImageProcessor.prototype.process.call(new (await import('./src/modules/media/image-processor.ts')).ImageProcessor(), 'product', big);
} else if (stage === 'parse') {
  const o = JSON.parse(body); const b = Buffer.from(o.base64, 'base64'); console.log(b.length);
} else {
  const res = await t.app.inject({ method: 'POST', url: '/v1/products/p/image', headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' }, payload: body });
  console.log(res.statusCode);
}
clearInterval(timer);
mem('after'); console.log('peak rss', mb(peak));
await t.close();
