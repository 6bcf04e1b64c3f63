// The programs `npm start` and `npm test` run, and the Debian packages that provide them, so a
// missing one is named in one line with the command that installs it. Plain JavaScript: it runs
// before dependencies are installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const runs = (command) => {
  const probe = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
};

/** What each needs: a check, and the Debian package that satisfies it. */
export const SYSTEM_PROGRAMS = {
  'redis-server': { package: 'redis-server', present: () => runs('redis-server') },
  git: { package: 'git', present: () => runs('git') },
  promtool: { package: 'prometheus', present: () => runs('promtool') },
  // CHROMIUM_PATH, when set, is the one browser to use (scripts/lib/browser.ts).
  chromium: {
    package: 'chromium',
    present: () => (process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']).some((p) => existsSync(p)),
  },
};

/**
 * Null when every program is there; otherwise one line naming what is missing and how to install it.
 * @param {string} who e.g. "npm test"
 * @param {(keyof typeof SYSTEM_PROGRAMS)[]} programs
 */
export function missingProgramsLine(who, programs) {
  const missing = programs.filter((name) => !SYSTEM_PROGRAMS[name].present());
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.map((name) => SYSTEM_PROGRAMS[name].package))];
  return `${who} needs ${missing.join(', ')}, not found: install ${packages.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: apt-get install -y ${packages.join(' ')}).`;
}
