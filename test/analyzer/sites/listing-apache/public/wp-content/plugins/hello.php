<?php
/**
 * @package Hello_Dolly
 * @version 1.7.2
 */
