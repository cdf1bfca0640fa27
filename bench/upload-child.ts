/**
 * The import-flood bench's uploader, in a process of its own started before anything is measured:
 * starting ten curl processes from the bench's own process stalled its event loop for up to 190 ms,
 * and the reads it was due to send then counted that stall as the service's. On the message
 * `{ url, key, file, count }` it POSTs `file` (JSON) `count` times at once with curl and answers
 * `{ answers: [{ status, id, ms }] }`, each `ms` counted from the message.
 */
import { execFile } from 'node:child_process';

export interface UploadOrder {
  url: string;
  key: string;
  file: string;
  count: number;
}

export interface UploadAnswer {
  status: number;
  id: string | undefined;
  ms: number;
}

function upload(order: UploadOrder, started: number): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const args = ['-s', '-X', 'POST', '-H', `X-Api-Key: ${order.key}`, '-H', 'Content-Type: application/json'];
    // curl's -w turns \n into a line break: the body, then the status on a line of its own.
    args.push('--data-binary', `@${order.file}`, '-w', '\\n%{http_code}', order.url);
    execFile('curl', args, { maxBuffer: 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const split = stdout.lastIndexOf('\n');
      const answer = JSON.parse(stdout.slice(0, split)) as { data?: { id: string } };
      resolve({ status: Number(stdout.slice(split + 1)), id: answer.data?.id, ms: performance.now() - started });
    });
  });
}

process.on('message', (order: UploadOrder) => {
  const started = performance.now();
  void Promise.all(Array.from({ length: order.count }, () => upload(order, started))).then(
    (answers) => process.send?.({ answers }),
    (error: Error) => process.send?.({ error: error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
