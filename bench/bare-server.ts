// The baseline of the HTTP targets: a bare Fastify process serving the same menu bytes as a
// pre-encoded Buffer, and a tiny JSON route. Carta's routes are measured as ratios against it.
// `/reference` sends the reference document's bytes (REFERENCE_FILE), to tell what sending its
// body costs a server from what Carta adds.
// Node's tick path kept fast, as in Carta (src/server/internals/tick-shape.ts). Without it this process can
// fall to the slow path as well (one went from 67,000 to 104,000 instructions a request within a
// run), and a ratio would measure which of the two processes fell.
import '../src/server/internals/tick-shape.js';
import fs from 'node:fs';
import Fastify from 'fastify';

const menu = fs.readFileSync(process.env.MENU_FILE as string);
const image = fs.readFileSync(process.env.IMAGE_FILE as string);
const reference = process.env.REFERENCE_FILE ? fs.readFileSync(process.env.REFERENCE_FILE) : Buffer.from('{}');
const app = Fastify({ logger: false });
app.get('/menu', async (_request, reply) => reply.type('application/json; charset=utf-8').send(menu));
app.get('/image', async (_request, reply) => reply.type('image/webp').send(image));
app.get('/reference', async (_request, reply) => reply.type('application/json; charset=utf-8').send(reference));
app.get('/tiny', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
