printf '# Changelog\n\n## Unreleased\n\n## 1.0.0\n- Added: login\n' > CHANGELOG.md
