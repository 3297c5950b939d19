// The BullMQ worker the ground-truth suite runs: one Worker of concurrency
// 8 on queue `gt`, with the queue limiter {max: 20, duration: 1000}. Each
// job sleeps its service time and appends its record (arrival as added,
// the instant BullMQ moved it to active (processedOn, where the limiter
// counts it), start and finish seen inside the processor) to the CSV
// named by GROUNDTRUTH_CSV. Stops on SIGTERM.
//
//   REDIS_PORT=PORT GROUNDTRUTH_CSV=raw.csv node worker.js
const fs = require("fs");
const { Worker } = require("bullmq");

const connection = { host: "127.0.0.1", port: Number(process.env.REDIS_PORT) };
const out = process.env.GROUNDTRUTH_CSV;
// microseconds since the epoch, as the enqueuer's clock reads them
const now = () => (performance.timeOrigin + performance.now()) / 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const worker = new Worker(
  "gt",
  async (job) => {
    const started = now();
    await sleep(job.data.service_ms);
    const finished = now();
    const d = job.data;
    fs.appendFileSync(
      out,
      `${d.id},${d.tenant},${d.queue},${d.created.toFixed(6)},${started.toFixed(6)},${finished.toFixed(6)},${(job.processedOn / 1000).toFixed(3)}\n`,
    );
  },
  { connection, concurrency: 8, limiter: { max: 20, duration: 1000 }, removeOnComplete: { count: 0 } },
);
worker.on("ready", () => fs.writeFileSync(out + ".ready", "1"));
process.on("SIGTERM", async () => {
  await worker.close();
  process.exit(0);
});
