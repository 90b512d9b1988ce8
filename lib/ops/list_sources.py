#!/usr/bin/env python3
"""The library's op files: every lib/ops/*.cpp, sorted, one per line (meson.build reads them, so a
new op file needs no build edit). Within a family, ops are registered, documented and given
binding methods in this order.

usage: list_sources.py OPS_DIR                      print the files
       list_sources.py OPS_DIR --configured FILE... exit 1 when the folder no longer holds exactly
                                                    FILE...: an op file was added or removed since
                                                    the build was configured.
"""
import pathlib
import sys


def main(argv):
    ops_dir = pathlib.Path(argv[0])
    found = sorted(p.name for p in ops_dir.glob('*.cpp'))
    if '--configured' not in argv:
        print('\n'.join('lib/ops/' + name for name in found))
        return 0
    configured = sorted(pathlib.Path(p).name for p in argv[argv.index('--configured') + 1:])
    if found == configured:
        return 0
    added = sorted(set(found) - set(configured))
    removed = sorted(set(configured) - set(found))
    print(f'lib/ops changed since this build was configured (new: {added or "none"}, gone: '
          f'{removed or "none"}): run `meson setup --reconfigure <build dir>`', file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
