#!/usr/bin/env python3
"""Tests of the header's generation from the op files (scripts/schema/generate_header.py) and of
the op file listing the build reads (lib/ops/list_sources.py), on small trees made here: a new op
file lands in its section in order, and every way the two can go wrong is refused, naming it."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATE = ROOT / 'scripts' / 'schema' / 'generate_header.py'
LIST = ROOT / 'lib' / 'ops' / 'list_sources.py'

HEADER = '''#ifndef H
/* ops */
/* >>> "Widgets": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
stale text
/* <<< "Widgets" */
#endif
'''


def block(section, *lines):
    return '\n'.join(['// an op', '',
                      f'// include/cudnnfe.h, section "{section}" (copied there by scripts/schema/generate_header.py):',
                      *[('// ' + line) if line else '//' for line in lines], '', '#include <x>', ''])


class GenerateHeader(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        (self.root / 'include').mkdir()
        (self.root / 'lib' / 'ops').mkdir(parents=True)
        (self.root / 'include' / 'cudnnfe.h').write_text(HEADER)

    def tearDown(self):
        self.dir.cleanup()

    def op(self, name, text):
        (self.root / 'lib' / 'ops' / name).write_text(text)

    def run_generator(self, *args):
        return subprocess.run([sys.executable, str(GENERATE), *args, str(self.root)],
                              capture_output=True, text=True)

    def header(self):
        return (self.root / 'include' / 'cudnnfe.h').read_text()

    def test_shared_declarations_come_first_then_files_by_name(self):
        self.op('b_op.cpp', block('Widgets', 'FE_API fe_status fe_graph_b(const fe_widget_options *o);'))
        self.op('a_op.cpp', block('Widgets', 'FE_API fe_status fe_graph_a(const fe_widget_options *o);'))
        self.op('z_common.cpp', block('Widgets', 'typedef struct fe_widget_options {', '    int x;',
                                      '} fe_widget_options;'))
        result = self.run_generator()
        self.assertEqual(result.returncode, 0, result.stderr)
        text = self.header()
        self.assertNotIn('stale text', text)
        self.assertLess(text.index('fe_widget_options {'), text.index('fe_graph_a('))
        self.assertLess(text.index('fe_graph_a('), text.index('fe_graph_b('))
        self.assertIn('/* <<< "Widgets" */\n#endif', text)
        self.assertEqual(self.run_generator('--check').returncode, 0)

    def test_check_refuses_a_stale_header_and_changes_nothing(self):
        self.op('a_op.cpp', block('Widgets', 'FE_API fe_status fe_graph_a(void);'))
        result = self.run_generator('--check')
        self.assertEqual(result.returncode, 1)
        self.assertIn('(sections: Widgets)', result.stdout)
        self.assertIn('run python3 scripts/schema/generate_header.py', result.stdout)
        self.assertEqual(self.header(), HEADER)

    def test_a_section_the_header_lacks_is_named(self):
        self.op('a_op.cpp', block('Gadgets', 'FE_API fe_status fe_graph_a(void);'))
        result = self.run_generator()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("['Gadgets']", result.stderr)
        self.assertIn('a_op.cpp', result.stderr)

    def test_a_macro_gets_its_backslashes_aligned(self):
        self.op('a_op.cpp', block('Widgets', '#define FE_A_INIT', '    { 1,', '      2 }', '',
                                  'FE_API fe_status fe_graph_a(void);'))
        self.assertEqual(self.run_generator().returncode, 0)
        self.assertIn('#define FE_A_INIT \\\n    { 1,' + ' ' * 10 + '\\\n      2 }\n\nFE_API', self.header())

    def test_a_backslash_in_the_block_is_refused(self):
        self.op('a_op.cpp', block('Widgets', '#define FE_A_INIT \\', '    { 1 }'))
        result = self.run_generator()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('a_op.cpp:4: no backslash', result.stderr)

    def test_a_line_not_written_as_the_block_writes_them_is_named(self):
        self.op('a_op.cpp', block('Widgets', 'int x;').replace('// int x;', '//int x;'))
        result = self.run_generator()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('a_op.cpp:4', result.stderr)

    def test_declarations_that_need_each_other_are_refused(self):
        self.op('a_op.cpp', block('Widgets', 'typedef struct fe_a { fe_b *b; } fe_a;'))
        self.op('b_op.cpp', block('Widgets', 'typedef struct fe_b { fe_a *a; } fe_b;'))
        result = self.run_generator()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('need each other', result.stderr)

    def test_a_name_only_in_a_comment_orders_nothing(self):
        self.op('a_op.cpp', block('Widgets', '/* as fe_graph_b */', 'FE_API fe_status fe_graph_a(void);'))
        self.op('b_op.cpp', block('Widgets', '/* as fe_graph_a */', 'FE_API fe_status fe_graph_b(void);'))
        self.assertEqual(self.run_generator().returncode, 0)


class ListSources(unittest.TestCase):
    def test_lists_sorted_and_detects_a_new_file(self):
        with tempfile.TemporaryDirectory() as d:
            ops = pathlib.Path(d)
            for name in ('b.cpp', 'a.cpp', 'a.hpp'):
                (ops / name).write_text('')
            listed = subprocess.run([sys.executable, str(LIST), d], capture_output=True, text=True).stdout.split()
            self.assertEqual(listed, ['lib/ops/a.cpp', 'lib/ops/b.cpp'])
            same = subprocess.run([sys.executable, str(LIST), d, '--configured', *listed], capture_output=True)
            self.assertEqual(same.returncode, 0)
            (ops / 'c.cpp').write_text('')
            grown = subprocess.run([sys.executable, str(LIST), d, '--configured', *listed],
                                   capture_output=True, text=True)
            self.assertEqual(grown.returncode, 1)
            self.assertIn("new: ['c.cpp']", grown.stderr)
            self.assertIn('meson setup --reconfigure', grown.stderr)


if __name__ == '__main__':
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print(f'{result.testsRun - failed} passed, {failed} failed, 0 skipped')
    sys.exit(1 if failed else 0)
