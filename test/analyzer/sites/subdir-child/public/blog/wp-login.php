<!DOCTYPE html>
<html lang="en-US"><head><title>Log In &lsaquo; Subdirectory Blog &#8212; WordPress</title>
<link rel='stylesheet' id='login-css' href='{{origin}}/blog/wp-admin/css/login.min.css?ver=6.5.3' media='all' />
</head><body class="login no-js login-action-login wp-core-ui">
<div id="login"><form name="loginform" id="loginform" action="{{origin}}/blog/wp-login.php" method="post"></form></div>
</body></html>
