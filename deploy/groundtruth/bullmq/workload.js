// Writes the recorded workload of the BullMQ run (id,tenant,queue,
// offset_ms,service_ms): a fixed seed, the same every run. Three tenants
// send critical, default and bulk jobs (priorities 1, 5, 9) at 12 a second
// over DURATION seconds; at FLOOD_AT the tenant `flood` adds FLOOD_JOBS
// bulk jobs of 100 ms. The queue's limiter lets 20 jobs start a second:
// the flood holds it at its limit for some 19 s, and every job that
// arrives meanwhile waits for a window with room, a wait set by the
// limiter's windows, not by the 8 slots (2 of them are busy on average).
//
//   node workload.js > workload.csv
const DURATION = Number(process.env.GROUNDTRUTH_DURATION || 30);
const FLOOD_AT = 5.0;
const FLOOD_JOBS = Number(process.env.GROUNDTRUTH_FLOOD || 150);
// per queue (class): arrivals per second over all tenants, service range in ms
const MIX = { critical: [4.0, 20, 60], default: [4.0, 50, 200], bulk: [4.0, 100, 200] };
const TENANTS = ["t1", "t2", "t3"];

// mulberry32: a small seeded generator, so every run sends the same jobs
let seed = 20261205;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const jobs = [];
for (const [queue, [rate, lo, hi]] of Object.entries(MIX)) {
  let t = 0;
  for (;;) {
    t += -Math.log(1 - rand()) / rate;
    if (t >= DURATION) break;
    const tenant = TENANTS[Math.floor(rand() * TENANTS.length)];
    jobs.push([tenant, queue, Math.round(t * 1000), lo + Math.floor(rand() * (hi - lo + 1))]);
  }
}
for (let i = 0; i < FLOOD_JOBS; i++) jobs.push(["flood", "bulk", Math.round(FLOOD_AT * 1000), 100]);
const order = jobs.map((j, i) => [j, i]).sort((a, b) => a[0][2] - b[0][2] || a[1] - b[1]);
const lines = ["id,tenant,queue,offset_ms,service_ms"];
order.forEach(([[tenant, queue, at, ms]], i) => lines.push(`${i},${tenant},${queue},${at},${ms}`));
console.log(lines.join("\n"));
