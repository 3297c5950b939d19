// Adds the workload (workload.csv, argument 2) to queue `gt` at its offsets
// from now, each job with its tenant, class, service, priority (critical 1,
// default 5, bulk 9: BullMQ starts a lower number first) and the instant
// it was added (its arrival in the record).
//
//   REDIS_PORT=PORT node enqueue.js workload.csv
const fs = require("fs");
const { Queue } = require("bullmq");

const PRIORITY = { critical: 1, default: 5, bulk: 9 };
const queue = new Queue("gt", { connection: { host: "127.0.0.1", port: Number(process.env.REDIS_PORT) } });
const now = () => (performance.timeOrigin + performance.now()) / 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
(async () => {
  const t0 = now();
  for (const [id, tenant, q, offset, service] of rows) {
    const wait = t0 + Number(offset) / 1000 - now();
    if (wait > 0) await sleep(wait * 1000);
    const created = now();
    await queue.add(
      "job",
      { id: Number(id), tenant, queue: q, service_ms: Number(service), created },
      { priority: PRIORITY[q], removeOnComplete: true },
    );
  }
  await queue.close();
})();
