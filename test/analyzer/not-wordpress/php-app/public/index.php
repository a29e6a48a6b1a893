<?php
/*
 * "Allotment Society": a small plain-PHP app (no framework), the kind of site the analyzer
 * meets that is not WordPress. A front controller: every request that is not a file in
 * public/ comes here (php -S router mode), as with nginx + php-fpm and try_files.
 */
if (PHP_SAPI === 'cli-server') {
    $path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
    if ($path !== '/' && is_file(__DIR__ . $path)) {
        return false; // let the built-in server send the static file
    }
}

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$origin = 'http://' . $_SERVER['HTTP_HOST'];

if ($path === '/sitemap.xml') {
    header('Content-Type: application/xml; charset=UTF-8');
    echo '<?xml version="1.0" encoding="UTF-8"?>', "\n";
    echo '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';
    foreach (['/', '/plots'] as $page) {
        echo '<url><loc>', htmlspecialchars($origin . $page), '</loc></url>';
    }
    echo '</urlset>';
    return;
}

if ($path !== '/' && $path !== '/plots') {
    http_response_code(404);
    echo '<!DOCTYPE html><html lang="en"><head><title>Not found</title></head><body><h1>Not found</h1></body></html>';
    return;
}

session_start(); // the visitor's plot reservations live in the session: PHPSESSID
$_SESSION['visits'] = ($_SESSION['visits'] ?? 0) + 1;
$plots = [
    ['number' => 3, 'size' => 'half', 'free' => true],
    ['number' => 7, 'size' => 'full', 'free' => false],
    ['number' => 12, 'size' => 'quarter', 'free' => true],
];
?>
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allotment Society — plots, waiting list and news</title>
<meta name="description" content="The allotment society: free plots, the waiting list, the seed swap and the work party dates.">
<link rel="canonical" href="<?= htmlspecialchars($origin . $path) ?>">
<link rel="stylesheet" href="/style.css">
</head>
<body>
<h1>Allotment Society</h1>
<p>Plots free this season:</p>
<ul>
<?php foreach ($plots as $plot): if ($plot['free']): ?>
<li>Plot <?= (int) $plot['number'] ?> (<?= htmlspecialchars($plot['size']) ?>)</li>
<?php endif; endforeach; ?>
</ul>
<form method="post" action="/plots"><label>Your name <input name="name"></label> <button>Join the waiting list</button></form>
</body>
</html>
