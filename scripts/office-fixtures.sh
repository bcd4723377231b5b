#!/bin/sh
# Regenerates the office documents under tests/data/office/ with LibreOffice, from the flat ODF
# and HTML sources written below: a DOCX (a heading, a list, a table), an XLSX (two sheets with
# shared strings and numbers) and a PPTX (two slides with speaker notes). The generated files
# are committed; LibreOffice is needed only to regenerate them:
#   apt-get install -y --no-install-recommends libreoffice-writer-nogui \
#     libreoffice-calc-nogui libreoffice-impress-nogui
#   scripts/office-fixtures.sh
set -eu

out=$(cd "$(dirname "$0")/../tests/data/office" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v soffice >/dev/null || { echo "soffice not found: install LibreOffice (see above)" >&2; exit 1; }

cat > "$work/report.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Report</title></head><body>
<h1>Quarterly report</h1>
<p>The reader now handles office documents.</p>
<h2>Goals</h2>
<ul>
<li>Read DOCX files</li>
<li>Read XLSX files</li>
<li>Read PPTX files</li>
</ul>
<table border="1">
<tr><td>Name</td><td>Count</td></tr>
<tr><td>Apples</td><td>12</td></tr>
<tr><td>Pears</td><td>7</td></tr>
</table>
<p>Café, naïve, 日本語.</p>
</body></html>
HTML

ns='xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"'

s() { printf '<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>' "$1"; }
n() { printf '<table:table-cell office:value-type="float" office:value="%s"><text:p>%s</text:p></table:table-cell>' "$1" "$1"; }
{
  echo "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
  echo "<office:document $ns office:version=\"1.3\" office:mimetype=\"application/vnd.oasis.opendocument.spreadsheet\">"
  echo "<office:body><office:spreadsheet>"
  echo "<table:table table:name=\"Fruit\">"
  echo "<table:table-row>$(s Item)$(s Qty)$(s Price)</table:table-row>"
  echo "<table:table-row>$(s Apples)$(n 12)$(n 1.5)</table:table-row>"
  echo "<table:table-row>$(s Pears)$(n 7)$(n 2.25)</table:table-row>"
  echo "<table:table-row>$(s Apples)$(n 3)$(n 1.5)</table:table-row>"
  echo "</table:table>"
  echo "<table:table table:name=\"Notes\">"
  echo "<table:table-row>$(s 'Apples')$(s 'sold out on Friday')</table:table-row>"
  echo "<table:table-row>$(n 42)</table:table-row>"
  echo "</table:table>"
  echo "</office:spreadsheet></office:body></office:document>"
} > "$work/fruit.fods"

frame() { # class x y text
  printf '<draw:frame presentation:class="%s" svg:x="2cm" svg:y="%scm" svg:width="24cm" svg:height="3cm"><draw:text-box><text:p>%s</text:p></draw:text-box></draw:frame>\n' "$1" "$2" "$3"
}
notes() {
  printf '<presentation:notes><draw:page-thumbnail presentation:class="page" svg:x="2cm" svg:y="2cm" svg:width="14cm" svg:height="10cm"/>'
  printf '<draw:frame presentation:class="notes" svg:x="2cm" svg:y="14cm" svg:width="16cm" svg:height="8cm"><draw:text-box><text:p>%s</text:p></draw:text-box></draw:frame></presentation:notes>\n' "$1"
}
{
  echo "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
  echo "<office:document $ns office:version=\"1.3\" office:mimetype=\"application/vnd.oasis.opendocument.presentation\">"
  echo "<office:master-styles><style:master-page style:name=\"Default\"/></office:master-styles>"
  echo "<office:body><office:presentation>"
  echo "<draw:page draw:name=\"One\" draw:master-page-name=\"Default\">"
  frame title 1 "Roadmap"
  frame outline 5 "Ship notebooks and office documents"
  notes "Say that the notebooks come first."
  echo "</draw:page>"
  echo "<draw:page draw:name=\"Two\" draw:master-page-name=\"Default\">"
  frame title 1 "Limits"
  frame outline 5 "Zip bombs are refused"
  notes "Show the refused bomb."
  echo "</draw:page>"
  echo "</office:presentation></office:body></office:document>"
} > "$work/roadmap.fodp"

cd "$work"
soffice --headless --norestore "-env:UserInstallation=file://$work/profile" \
  --infilter="HTML (StarWriter)" --convert-to 'docx:MS Word 2007 XML' report.html >/dev/null
soffice --headless --norestore "-env:UserInstallation=file://$work/profile" \
  --convert-to 'xlsx:Calc MS Excel 2007 XML' fruit.fods >/dev/null
soffice --headless --norestore "-env:UserInstallation=file://$work/profile" \
  --convert-to 'pptx:Impress MS PowerPoint 2007 XML' roadmap.fodp >/dev/null
cp report.docx fruit.xlsx roadmap.pptx "$out/"
echo "wrote $out/report.docx $out/fruit.xlsx $out/roadmap.pptx"
