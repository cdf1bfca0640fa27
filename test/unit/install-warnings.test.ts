import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// Issue 28, item 11: `npm install` on a fresh clone prints no warning. npm warns EBADENGINE for an
// installed package whose `engines` exclude the running Node, and "install-scripts" for a package
// with an install script that `allowScripts` does not decide; the lockfile records both.
interface Locked {
  engines?: { node?: string };
  hasInstallScript?: boolean;
}
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Locked> };
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
};
const locked = Object.entries(lock.packages).filter(([location]) => location.startsWith('node_modules/'));
const nameOf = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('npm install', () => {
  it('installs nothing that refuses a Node version our engines accept', () => {
    // The oldest release of each range we accept (20.19.0, 22.19.0, 24.0.0).
    const oldest = manifest.engines.node.split('||').map((range) => semver.minVersion(range)!.version);
    expect(oldest.length).toBeGreaterThan(1);
    const refusing = locked.flatMap(([location, entry]) => {
      const wanted = entry.engines?.node;
      const refused = wanted ? oldest.filter((version) => !semver.satisfies(version, wanted)) : [];
      return refused.length ? [`${nameOf(location)} (${wanted}) refuses Node ${refused.join(', ')}`] : [];
    });
    expect(refusing).toEqual([]);
  });

  it('has decided, in allowScripts, every install script it may meet on any platform', () => {
    const undecided = locked
      .filter(([location, entry]) => entry.hasInstallScript && !(nameOf(location) in manifest.allowScripts))
      .map(([location]) => nameOf(location));
    expect(undecided).toEqual([]);
  });
});
