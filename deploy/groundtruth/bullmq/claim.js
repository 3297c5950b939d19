// What the scenario must be told about this BullMQ run, measured from the
// record (its processed_on column is the instant BullMQ moved a job to
// active, in milliseconds, where its limiter counts the job):
//
//   claim   the mean time from a job's move to active to its processor's
//           start (fetching and parsing the job), for `costs: {claim}`
//   window  the limiter's window as the worker lives it: the 1000 ms key
//           plus the mean delay from the end of a full window (20 moves)
//           to the next move to active (the worker waits out the key's
//           time to live, then asks again: a timer, a Redis round trip),
//           for `limiter: {max: 20, duration}`
//
// Prints `claim_us window_us`, whole microseconds.
//
//   node claim.js RECORD.csv
const fs = require("fs");
const MAX = 20;
const DURATION = 1.0;
const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
const claim = mean(rows.map((r) => Number(r[4]) - Number(r[6])));
// BullMQ's windows: each opens at the first move to active after the last closed
const moves = rows.map((r) => Number(r[6])).sort((a, b) => a - b);
const late = [];
let opened = null;
let count = 0;
for (const t of moves) {
  if (opened === null || t >= opened + DURATION) {
    if (opened !== null && count >= MAX) late.push(t - (opened + DURATION));
    opened = t;
    count = 0;
  }
  count += 1;
}
const window = DURATION + (late.length ? mean(late) : 0);
console.log(Math.max(0, Math.round(claim * 1e6)), Math.round(window * 1e6));
