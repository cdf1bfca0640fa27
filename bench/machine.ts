import os from 'node:os';

/** The machine a blueprint bench ran on, for its results file. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    date: new Date().toISOString(),
  };
}
