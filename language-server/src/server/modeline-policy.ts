import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SchemaUnavailable } from './schema-reader.ts';

/**
 * What a modeline may name. A modeline comes with the file, from whoever wrote it, so it gets less
 * than the user's own `blueprint.schema` setting: files under the allowed paths, URLs on request.
 */
export interface ModelinePolicy {
  /** Absolute folders (or files) a modeline may name: the workspace folders and `blueprint.modeline.allowedPaths`. */
  allowedPaths: readonly string[];
  /** `blueprint.modeline.allowDownload`: whether a modeline may name an http(s) URL (default false). */
  allowDownload: boolean;
}

/** Throws `SchemaUnavailable` when a modeline may not name `location` (a file URL or another URL). */
export async function checkModelineLocation(location: string, policy: ModelinePolicy): Promise<void> {
  if (!location.startsWith('file:')) {
    if (!/^https?:\/\//i.test(location)) throw new SchemaUnavailable('is not a file or an http(s) URL');
    if (!policy.allowDownload) {
      throw new SchemaUnavailable(
        'is a URL, and downloading the schema a modeline names is off (setting blueprint.modeline.allowDownload)',
      );
    }
    return;
  }
  // Links are followed before the check: a link in the workspace to /etc/passwd is outside it. A
  // path that does not resolve is judged as written, so that the answer says nothing about files
  // outside the allowed paths.
  const written = fileURLToPath(location);
  const file = await realpath(written).catch(() => undefined);
  const roots = await Promise.all(policy.allowedPaths.map((root) => realpath(root).catch(() => root)));
  if (!roots.some((root) => isWithin(file ?? written, root))) {
    throw new SchemaUnavailable(
      'is outside the workspace folders (more can be allowed with blueprint.modeline.allowedPaths)',
    );
  }
  if (file === undefined) throw new SchemaUnavailable('does not exist');
}

function isWithin(file: string, root: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
