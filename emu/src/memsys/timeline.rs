//! What the shared memory system did over time, for the trace's counter tracks: requests, hits
//! and device-memory bytes added up per stretch of cycles, by when each happened — a line's
//! transfer by when its channel moves it, not when it was asked for, so the HBM track shows the
//! bandwidth achieved, never more than the channels can move.

/// Counts per stretch of `bucket` cycles, from cycle 0 of the launch.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub bucket: u64,
    pub samples: Vec<Sample>,
}

/// One stretch's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    pub l2_requests: u64,
    pub l2_hits: u64,
    pub dram_bytes: u64,
}

/// Stretches a timeline keeps at most (a long kernel's later ones are added to the last).
const MAX_SAMPLES: usize = 1 << 20;

impl Timeline {
    pub fn new(bucket: u64) -> Timeline {
        Timeline {
            bucket: bucket.max(1),
            samples: Vec::new(),
        }
    }

    /// The stretch holding cycle `at`.
    pub fn at(&mut self, at: u64) -> &mut Sample {
        let i = ((at / self.bucket) as usize).min(MAX_SAMPLES - 1);
        if self.samples.len() <= i {
            self.samples.resize(i + 1, Sample::default());
        }
        &mut self.samples[i]
    }
}
