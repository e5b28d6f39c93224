// The baseline: an express hello-world handler on the same kind of request (the body is not read).
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.post('/webhooks/alertmanager', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
