#!/usr/bin/env node
// Scaffold a React + TS component folder. Usage: node new-component.mjs Name [--dir d] [--no-story]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const name = args[0];
const opt = (flag, dflt) => {
  const i = args.indexOf(flag);
  return i > -1 ? args[i + 1] : dflt;
};
const dir = opt('--dir', 'src/components');
const withStory = !args.includes('--no-story');

if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
  console.error('Component name must be PascalCase, e.g. UserAvatar');
  process.exit(2);
}
const root = path.resolve(dir);
const target = path.join(root, name);
if (!target.startsWith(root + path.sep)) throw new Error('refusing to write outside --dir');
if (existsSync(target)) {
  console.error(`${target} already exists; not overwriting`);
  process.exit(1);
}
mkdirSync(target, { recursive: true });

const kebab = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const files = {
  [`${name}.tsx`]: `import styles from './${name}.module.css';

export interface ${name}Props extends React.HTMLAttributes<HTMLDivElement> {
  /** Visible label. */
  label: string;
}

export function ${name}({ label, className, ...rest }: ${name}Props) {
  return (
    <div className={[styles.root, className].filter(Boolean).join(' ')} data-testid="${kebab}" {...rest}>
      {label}
    </div>
  );
}
`,
  [`${name}.module.css`]: `.root {\n}\n`,
  [`${name}.test.tsx`]: `import { render, screen } from '@testing-library/react';
import { ${name} } from './${name}';

it('renders its label', () => {
  render(<${name} label="Hello" />);
  expect(screen.getByText('Hello')).toBeInTheDocument();
});
`,
  'index.ts': `export { ${name} } from './${name}';\nexport type { ${name}Props } from './${name}';\n`,
};
if (withStory) {
  files[`${name}.stories.tsx`] = `import type { Meta, StoryObj } from '@storybook/react';
import { ${name} } from './${name}';

const meta: Meta<typeof ${name}> = { component: ${name}, args: { label: '${name}' } };
export default meta;
export const Default: StoryObj<typeof ${name}> = {};
`;
}
for (const [file, body] of Object.entries(files)) writeFileSync(path.join(target, file), body);

try {
  execFileSync('npx', ['--no-install', 'prettier', '--write', target], { stdio: 'inherit' });
} catch {
  console.warn('prettier not available in this project; files left unformatted');
}
console.log(`created ${path.relative(process.cwd(), target)}/ (${Object.keys(files).length} files)`);
