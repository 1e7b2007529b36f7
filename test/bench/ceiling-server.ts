import express from 'express';

/** The stack's ceiling: a bare express app answering a fixed envelope. */
const app = express();
app.get('/', (_req, res) => {
  res.json({ valid: true, message: 'OK', items: [{ id: 1 }] });
});
const server = app.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
