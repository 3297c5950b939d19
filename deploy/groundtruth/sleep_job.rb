# The job every ground-truth run executes: it sleeps its service time and
# appends its own record (arrival as pushed, start and finish as seen from
# inside the job, and the thread that ran it) to the CSV named by GROUNDTRUTH_CSV. Times are epoch
# seconds: the enqueuer and the Sidekiq process share this machine's clock.
require "sidekiq"

# redis 4.8 warns on every fetch that Sidekiq 6.4 calls BRPOP the old way
Redis.silence_deprecations = true if Redis.respond_to?(:silence_deprecations=)

class SleepJob
  include Sidekiq::Worker
  sidekiq_options retry: false

  LOCK = Mutex.new

  def perform(id, tenant, queue, service_ms, created_at)
    started = Time.now.to_f
    sleep(service_ms / 1000.0)
    finished = Time.now.to_f
    # the thread, so overhead.rb can measure the gap between its jobs
    line = format("%s,%s,%s,%.6f,%.6f,%.6f,%d\n", id, tenant, queue, created_at, started, finished,
                  Thread.current.object_id)
    # one write per line in append mode: lines of threads never interleave
    LOCK.synchronize { File.open(ENV.fetch("GROUNDTRUTH_CSV"), "a") { |f| f.write(line) } }
  end
end
